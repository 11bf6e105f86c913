// Certificate images archived at issue (issue 17), through the real gateway on anvil and
// Restate, with each media backend (a directory; the S3 API against a local s3rver): images of
// an order form and of a CSV are served by a local HTTPS host, which is then stopped. The
// public read, the token metadata (tokenURI's document) and the verify page still show the
// images — from Hallmark, with the sha256 anchored in the metadata — and one image used by
// every certificate of the CSV is stored once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  idempotencyKeyOf,
  orderBody,
  serviceQuery,
  startImageServer,
  waitForJob,
  type ImageServer,
} from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { startLocalS3, type LocalS3 } from '../src/s3.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Files under `dir` (recursively) whose name passes `keep`. */
function countFiles(dir: string, keep: (name: string) => boolean): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true }).filter(() => statSync(dir).isDirectory())) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += countFiles(p, keep);
    else if (keep(e.name)) n++;
  }
  return n;
}

const backends = [
  { name: 'filesystem', rows: 1000 },
  { name: 'S3 (local s3rver)', rows: 100 },
] as const;

describe.each(backends)('images archived at issue, $name backend', ({ name, rows }) => {
  let stack: TestStack;
  let images: ImageServer;
  let s3: LocalS3 | null = null;
  let auth: string;
  let mediaDir: string;
  let tmp: string;
  const ent = `ent_${(name[0] === 'f' ? 'f' : 'g').repeat(24)}`;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-media-e2e-'));
    // Its own directory: the image host is closed mid-test (gone), the media stay.
    mkdirSync(path.join(tmp, 'images'));
    images = await startImageServer(path.join(tmp, 'images'));
    mediaDir = path.join(tmp, 'media');
    const storage =
      name === 'filesystem'
        ? { HALLMARK_MEDIA_BACKEND: 'fs', HALLMARK_MEDIA_DIR: mediaDir }
        : await (async () => {
            s3 = await startLocalS3(path.join(tmp, 's3'));
            return {
              HALLMARK_MEDIA_BACKEND: 's3',
              HALLMARK_MEDIA_S3_BUCKET: s3.bucket,
              HALLMARK_MEDIA_S3_ENDPOINT: s3.endpoint,
              HALLMARK_MEDIA_S3_ACCESS_KEY_ID: s3.accessKeyId,
              HALLMARK_MEDIA_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
            };
          })();
    stack = await startTestStack({
      anvil: true,
      restate: true,
      env: { NODE_EXTRA_CA_CERTS: images.caFile, HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1', ...storage },
    });
    auth = await stack.token({ ent });
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await images?.close().catch(() => undefined);
    await s3?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('keeps showing Hallmark’s copies, with the anchored sha256, after the merchant’s image host is gone; one image for many certificates is stored once', async () => {
    // An order form (minted within the request) and a CSV whose rows all show one image.
    const order = orderBody(1);
    order.metadata = [{ ...(order.metadata[0] as object), imageUrl: `${images.url}/order.png` }];
    const sync = await stack.call('POST', '/api/bulk-mint', {
      auth,
      body: order,
      headers: { 'idempotency-key': idempotencyKeyOf(order) },
    });
    expect(sync.status).toBe(201);
    const lines = ['name,description,category,recipientEmail,imageUrl'];
    for (let r = 1; r <= rows; r++)
      lines.push(`Ring ${r},Gold ring,Rings,o${r}@example.com,${images.url}/same.png`);
    const form = new FormData();
    form.append('metadata', new Blob([lines.join('\n')], { type: 'text/csv' }), 'rings.csv');
    const up = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}` },
      body: form,
    });
    expect(up.status).toBe(202);
    const job = await waitForJob(stack, auth, ((await up.json()) as any).data.jobId, 240_000);
    expect(job).toMatchObject({ status: 'completed', successCount: rows });
    // Each URL fetched once, however many certificates show it.
    expect(images.requests.filter((r) => r === '/same.png')).toHaveLength(1);

    // The merchant's host goes away.
    await images.close();

    const certs = await serviceQuery<{ id: string; name: string; token_id: string; metadata: any }>(
      stack,
      'certificates',
      `SELECT id, name, token_id, metadata FROM certificates WHERE enterprise_id = $1 ORDER BY name`,
      [ent],
    );
    expect(certs).toHaveLength(rows + 1);
    const one = (prefix: string) => certs.find((c) => c.name.startsWith(prefix))!;
    for (const [cert, source] of [
      [one('Chronograph'), `${images.url}/order.png`],
      [one('Ring 1'), `${images.url}/same.png`],
    ] as const) {
      const anchored = cert.metadata.image.sha256 as string;
      // The public read: Hallmark's URL, the merchant's kept as imageSource.
      const pub = await stack.call('GET', `/api/certificate/public/${cert.id}`);
      expect(pub.status).toBe(200);
      const imageUrl = pub.body.imageUrl ?? pub.body.data?.imageUrl;
      expect(new URL(imageUrl).pathname).toBe(`/media/${anchored}`);
      expect(JSON.stringify(pub.body)).toContain(source);
      // The bytes Hallmark serves hash to the anchored sha256.
      const img = await fetch(`${stack.gatewayUrl}/media/${anchored}`);
      expect(img.status).toBe(200);
      expect(img.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(sha(Buffer.from(await img.arrayBuffer()))).toBe(anchored);
      // tokenURI's document (baseURI + token id) names the same image.
      const meta = await stack.call('GET', `/api/certificate/metadata/${cert.token_id}`);
      expect(meta.status).toBe(200);
      expect(new URL(meta.body.image).pathname).toBe(`/media/${anchored}`);
      // The verify page: every check passes, the image check among them, Hallmark's picture.
      const page = await fetch(`${stack.gatewayUrl}/verify/${cert.id}`);
      const html = await page.text();
      expect(html).toContain('data-result="verified"');
      expect(html).toContain('Image matches the hash anchored on chain');
      expect(html).toContain(`/media/${anchored}?w=480`);
      expect(html).toMatch(/<img[^>]*class="photo"[^>]*width="\d+"[^>]*height="\d+"/s);
      const small = await fetch(`${stack.gatewayUrl}/media/${anchored}?w=480`);
      expect(small.headers.get('content-type')).toBe('image/webp');
    }

    // Two distinct images (the order's and the CSV's), stored once each.
    const [count] = await serviceQuery<{ n: string }>(
      stack,
      'certificates',
      'SELECT count(*)::text AS n FROM media_objects',
    );
    expect(Number(count!.n)).toBe(2);
    const objects =
      name === 'filesystem'
        ? countFiles(path.join(mediaDir, 'objects'), (f) => !f.endsWith('.tmp'))
        : countFiles(path.join(path.dirname(mediaDir), 's3', s3!.bucket, 'objects'), (f) =>
            f.endsWith('._S3rver_object'),
          );
    expect(objects).toBe(2);
  }, 300_000);
});
