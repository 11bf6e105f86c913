// GS1 Digital Link end to end (docs/digital-link.md), on the real services, anvil and Restate:
// a CSV bulk job whose rows carry `gtin` and `serial` mints certificates with them (a pair
// repeated in the file fails the later row; a pair already taken refuses its whole batch and
// writes none of it), the public read shows their Digital Link URI, and the gateway resolves
// it as a GS1-Conformant resolver: 307 to the verify page, the linkset, HEAD, OPTIONS, 400 on a
// bad check digit (certificates' own rule), 404 for an unknown item or a GTIN alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { csvForm, serviceQuery, startImageServer, waitForJob, type ImageServer } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let images: ImageServer;
let auth: string;
const ent = `ent_${'g'.repeat(24)}`;
const GTIN = '09506000134352';
const GS1 = 'https://gs1.org/voc/';

beforeAll(async () => {
  images = await startImageServer(mkdtempSync(path.join(tmpdir(), 'hallmark-images-')));
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: { NODE_EXTRA_CA_CERTS: images.caFile, HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
  });
  auth = await stack.token({ ent });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await images?.close();
});

async function upload(csv: string) {
  const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}` },
    body: csvForm(csv),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { data: { jobId: string } }).data.jobId;
}

const get = (url: string, init: RequestInit = {}) =>
  fetch(`${stack.gatewayUrl}${url}`, { redirect: 'manual', ...init });

const HEADER = 'name,description,category,recipientEmail,imageUrl,gtin,serial,passportUrl';

describe('certificates with a GTIN and serial, issued by a CSV bulk job and resolved as GS1 Digital Links', () => {
  let bagId: string;

  it('mints the rows with their GTIN (normalised) and serial; a pair repeated in the file fails the later row', async () => {
    const img = `${images.url}/bag.png`;
    const jobId = await upload(
      [
        HEADER,
        `Bag,Leather bag,Bags,a@example.com,${img},9506000134352,BAG/001,https://dpp.example/p/bag-1`,
        `Plain,No GTIN,Bags,b@example.com,${img},,,`,
        `Twin,Same pair,Bags,c@example.com,${img},09506000134352,BAG/001,`,
        `Bad,Bad GTIN,Bags,d@example.com,${img},09506000134353,X1,`,
      ].join('\n'),
    );
    const job = await waitForJob(stack, auth, jobId);
    expect(job).toMatchObject({ status: 'completed', successCount: 2, failedCount: 2 });
    const errors = Object.fromEntries(
      job.errors.map((e: { row: number; error: string }) => [e.row, e.error]),
    );
    expect(errors[3]).toMatch(/are those of row 1 already/);
    expect(errors[4]).toMatch(/gtin "09506000134353" has a wrong check digit/);
    const rows = await serviceQuery<{ id: string; name: string; gtin: string | null; serial: string | null }>(
      stack,
      'certificates',
      `SELECT id, name, gtin, serial FROM certificates WHERE enterprise_id = $1 ORDER BY name`,
      [ent],
    );
    expect(rows.map((r) => [r.name, r.gtin, r.serial])).toEqual([
      ['Bag', GTIN, 'BAG/001'],
      ['Plain', null, null],
    ]);
    bagId = rows[0]!.id;
    const read = await get(`/api/certificate/public/${bagId}`);
    const body = (await read.json()) as {
      gtin: string;
      serial: string;
      digitalLink: string;
      metadata: object;
    };
    expect(body).toMatchObject({
      gtin: GTIN,
      serial: 'BAG/001',
      metadata: { passportUrl: 'https://dpp.example/p/bag-1' },
    });
    expect(body.digitalLink).toMatch(new RegExp(`/01/${GTIN}/21/BAG%2F001$`));
  }, 240_000);

  it('refuses a batch holding a pair another certificate has: every row of that batch fails, none is minted', async () => {
    const img = `${images.url}/bag.png`;
    const jobId = await upload(
      [
        HEADER,
        `New,Fresh pair,Bags,e@example.com,${img},${GTIN},BAG/002,`,
        `Taken,Taken pair,Bags,f@example.com,${img},${GTIN},BAG/001,`,
      ].join('\n'),
    );
    const job = await waitForJob(stack, auth, jobId);
    expect(job).toMatchObject({ successCount: 0, failedCount: 2 });
    for (const e of job.errors) expect(e.error).toMatch(/exists already/);
    const fresh = await serviceQuery(
      stack,
      'certificates',
      `SELECT id FROM certificates WHERE serial = 'BAG/002'`,
    );
    expect(fresh).toEqual([]);
  }, 240_000);

  it('resolves the item: 307 to its verify page with the Link header; the linkset; HEAD; OPTIONS', async () => {
    const item = `/01/${GTIN}/21/BAG%2F001`;
    const res = await get(item);
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toMatch(new RegExp(`/verify/${bagId}$`));
    expect(res.headers.get('link')).toContain(`rel="${GS1}defaultLink"`);
    expect(res.headers.get('link')).toContain(`<https://dpp.example/p/bag-1>; rel="${GS1}pip"`);

    // A short GTIN and a lot resolve the same item; the anchor is the canonical URI.
    const set = await get(`/01/9506000134352/10/LOT7/21/BAG%2F001?linkType=all`);
    expect(set.status).toBe(200);
    expect(set.headers.get('content-type')).toBe('application/linkset+json');
    const linkset = ((await set.json()) as { linkset: Record<string, unknown>[] }).linkset[0]!;
    expect(String(linkset.anchor)).toMatch(new RegExp(`${item}$`));
    expect(Object.keys(linkset).sort()).toEqual(
      [
        'anchor',
        ...['certificationInfo', 'defaultLink', 'pip', 'verificationService'].map((t) => GS1 + t),
      ].sort(),
    );

    const head = await get(item, { method: 'HEAD' });
    expect(head.status).toBe(307);
    expect(head.headers.get('location')).toBe(res.headers.get('location'));
    expect(await head.text()).toBe('');

    const options = await get(item, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it("answers certificates' 400 for bad syntax and 404 for an unknown item or a GTIN alone, in the error envelope", async () => {
    for (const [url, status, param] of [
      [`/01/09506000134353/21/BAG%2F001`, 400, 'gtin'],
      [`/01/${GTIN}/21/a%20b`, 400, 'serial'],
      [`/01/${GTIN}/99/x`, 400, 'path'],
      [`/01/${GTIN}/21/NOPE`, 404, undefined],
      [`/01/${GTIN}`, 404, undefined],
    ] as const) {
      const res = await get(url);
      const body = (await res.json()) as { error: { code: string; param?: string } };
      expect([url, res.status, body.error.param]).toEqual([url, status, param]);
    }
  });
});
