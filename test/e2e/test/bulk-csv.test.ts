// The CSV form of bulk mint through the real gateway, on anvil and Restate: a 1,000-row CSV
// with a ZIP of images becomes 1,000 jobs items — minted certificates with vouchers for the
// good rows, row errors for the bad ones — and every file-level problem is a 400 before any
// job exists. The developer-experience suites (listen forwarding, subscription health, a row
// fixed in place: src/developer-experience.ts) run on this stack too.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  csvForm,
  png,
  serviceQuery,
  startImageServer,
  waitForJob,
  zipNames,
  zipOf,
  type ImageServer,
} from '../src/bulk.js';
import { describeDeveloperExperience } from '../src/developer-experience.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let images: ImageServer;
let auth: string;
const ent = `ent_${'s'.repeat(24)}`;

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

async function upload(form: FormData, token = auth) {
  const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const HEADER = 'name,description,category,recipientEmail,recipientName,imageFile,expiryDays,attribute_Color';

describe('CSV + ZIP bulk job', () => {
  it('mints every good row of a 1,000-row CSV with its ZIP image and reports each bad row', async () => {
    const lines = [HEADER];
    const entries: { name: string; data: Buffer }[] = [];
    for (let row = 1; row <= 1000; row++) {
      const email = row === 17 ? 'not-an-email' : `owner${row}@example.com`;
      // Row 500 names an image that is not in the ZIP; row 17 has a bad e-mail.
      const imageFile = row === 500 ? 'missing.png' : '';
      lines.push(
        `Watch ${row},"Hand-made, No. ${row}",Watches,${email},Owner ${row},${imageFile},${row === 3 ? 7 : ''},Blue`,
      );
      if (row !== 500) entries.push({ name: `${row}.png`, data: png(`row-${row}`) });
    }
    // A formula in a name must not survive into the download.
    lines[2] = lines[2]!.replace('Watch 2,', '=HYPERLINK("http://x"),');
    const zip = await zipOf(entries);
    const created = await upload(csvForm(lines.join('\r\n'), zip, { createBatch: 'true' }));
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ success: true, data: { status: 'queued', totalCount: 1000 } });
    const jobId = created.body.data.jobId;

    const job = await waitForJob(stack, auth, jobId, 240_000);
    expect(job).toMatchObject({ status: 'completed', totalCount: 1000, successCount: 998, failedCount: 2 });
    expect(job.processedCount).toBe(1000);
    expect(job.errors.map((e: { row: number }) => e.row)).toEqual([17, 500]);
    expect(job.errors[0].error).toMatch(/e-?mail/i);
    expect(job.errors[1].error).toMatch(/missing\.png/);

    // The CSV download: exactly the spec's columns, one line per row, formula neutralised.
    const csv = await fetch(`${stack.gatewayUrl}/api/bulk-mint/${jobId}/download/csv`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toMatch(/attachment/);
    const text = await csv.text();
    const rows = text.trim().split(/\r?\n/);
    expect(rows[0]).toBe('row,name,status,certificateId,voucherId,referenceNumber,recipientEmail,error');
    expect(rows).toHaveLength(1001);
    expect(rows[2]).toMatch(/^2,"?'=HYPERLINK/);
    expect(rows[1]).toMatch(
      /^1,Watch 1,success,cert_\w+,v_\w+,HM-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9*~$=],owner1@example.com,$/,
    );
    expect(rows[17]).toMatch(/^17,Watch 17,failed,,,,not-an-email,/);

    // The ZIP download: metadata for each certificate and the uploaded images.
    const zipRes = await fetch(`${stack.gatewayUrl}/api/bulk-mint/${jobId}/download/zip`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    expect(zipRes.status).toBe(200);
    const names = await zipNames(Buffer.from(await zipRes.arrayBuffer()));
    expect(names.filter((n) => n.startsWith('metadata/'))).toHaveLength(998);
    expect(names.filter((n) => n.startsWith('images/'))).toHaveLength(998);

    // Each certificate's image is served publicly and hashed into its metadata.
    const [cert] = await serviceQuery<{ image_url: string; metadata: any }>(
      stack,
      'certificates',
      `SELECT image_url, metadata FROM certificates WHERE enterprise_id = $1 AND name = 'Watch 1'`,
      [ent],
    );
    // Archived by the certificates service, content-addressed: /media/<sha256 of the stored bytes>.
    expect(cert!.image_url).toMatch(/\/media\/[0-9a-f]{64}$/);
    const media = await fetch(new URL(new URL(cert!.image_url).pathname, stack.gatewayUrl));
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await media.arrayBuffer())).toEqual(png('row-1'));
    expect(cert!.image_url.endsWith(`/media/${cert!.metadata.image.sha256}`)).toBe(true);
    expect(cert!.metadata.attributes).toEqual([{ trait_type: 'Color', value: 'Blue' }]);

    // document.uploaded and document.processed (versioned surface) with the job.
    const events = await serviceQuery<{ type: string }>(
      stack,
      'bulk',
      `SELECT type FROM outbox WHERE payload->'data'->'object'->>'id' = $1 OR payload->'data'->>'jobId' = $1
        ORDER BY created_at`,
      [jobId],
    );
    expect(events.map((e) => e.type)).toEqual([
      'document.uploaded',
      'bulk.job.completed',
      'document.processed',
    ]);
  }, 300_000);

  it('fetches image URLs through the outbound guard and fails only the rows whose image is unreachable', async () => {
    images.missing.add('/gone.png');
    const csv = [
      'name,description,category,recipientEmail,imageUrl',
      `Ring,Gold ring,Jewellery,a@example.com,${images.url}/ring.png`,
      `Gone,No image,Jewellery,b@example.com,${images.url}/gone.png`,
      `Loop,Loopback,Jewellery,c@example.com,https://localhost:1/private.png`,
    ].join('\n');
    const created = await upload(csvForm(csv));
    expect(created.status).toBe(202);
    const job = await waitForJob(stack, auth, created.body.data.jobId);
    expect(job).toMatchObject({ status: 'completed', successCount: 1, failedCount: 2 });
    // One "could not fetch" for every failure after dialling (a 404 here): the cause is in the
    // logs, never told to the client (security issue 27, finding 8: no port probing).
    expect(job.errors.find((e: { row: number }) => e.row === 2).error).toMatch(/could not fetch image_url/);
    expect(job.errors.find((e: { row: number }) => e.row === 2).error).not.toMatch(/404/);
    expect(images.requests).toContain('/ring.png');
  }, 120_000);

  it('an image met while the certificates service is down waits for it: the rows succeed once it is back, none fails', async () => {
    // Archiving an image is certificates' job; its outage is ours, not the row's, so the
    // workflow step is retried until it is back (it once failed every row of the batch).
    await stack.processes.get('certificates')!.stop();
    const csv = [
      'name,description,category,recipientEmail,imageUrl',
      `Brooch,Silver brooch,Jewellery,a@example.com,${images.url}/during-outage-1.png`,
      `Pin,Silver pin,Jewellery,b@example.com,${images.url}/during-outage-2.png`,
    ].join('\n');
    const created = await upload(csvForm(csv));
    expect(created.status).toBe(202);
    const jobId = created.body.data.jobId;
    // Long enough for the job to reach the image step and meet the outage more than once.
    await new Promise((r) => setTimeout(r, 4000));
    await stack.startService('certificates');
    const job = await waitForJob(stack, auth, jobId);
    expect(job).toMatchObject({ status: 'completed', successCount: 2, failedCount: 0 });
    expect(images.requests).toEqual(expect.arrayContaining(['/during-outage-1.png', '/during-outage-2.png']));
  }, 180_000);

  it.each([
    [
      'a missing required column',
      'name,description,category,imageUrl\nA,B,C,https://x.example/a.png',
      /recipientEmail/,
    ],
    ['an empty file', '', /empty/i],
    ['a header without rows', HEADER.replace('imageFile', 'imageUrl'), /no data rows/i],
    ['a binary file', Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 0, 0, 0xff]), /CSV/],
  ])('refuses %s with a 400 before any job exists', async (_what, csv, message) => {
    const before = await serviceQuery<{ n: number }>(stack, 'bulk', 'SELECT count(*)::int AS n FROM jobs');
    const res = await upload(csvForm(csv as string));
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(JSON.stringify(res.body)).toMatch(message);
    const after = await serviceQuery<{ n: number }>(stack, 'bulk', 'SELECT count(*)::int AS n FROM jobs');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('a status with more row errors than fit inline answers every one, in row order, streamed', async () => {
    // 1,500 rows with a bad e-mail and one good row (ERRORS_INLINE is 1,000).
    const lines = ['name,description,category,recipientEmail,imageUrl'];
    for (let row = 1; row <= 1501; row++)
      lines.push(
        `Ring ${row},Gold,Jewellery,${row === 1 ? 'a@example.com' : `bad-${row}`},${images.url}/r.png`,
      );
    const created = await upload(csvForm(lines.join('\n')));
    expect(created.status).toBe(202);
    const job = await waitForJob(stack, auth, created.body.data.jobId);
    expect(job).toMatchObject({ successCount: 1, failedCount: 1500 });
    expect(job.errors.map((e: { row: number }) => e.row)).toEqual(
      Array.from({ length: 1500 }, (_, i) => i + 2),
    );
    expect(job.errors[1499].error).toMatch(/e-?mail/i);
    // Streamed (no length known up front), and valid JSON of the same shape as an inline answer.
    const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint/${job.jobId}`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as any;
    expect(Object.keys(body.data)).toEqual(Object.keys(job));
    expect(body.data.errors).toHaveLength(1500);
  }, 120_000);

  it('refuses a ZIP entry that escapes its folder, naming it', async () => {
    const zip = await zipOf([{ name: 'ok.png', data: png('ok') }]);
    // Same length as "ok.png": patched in the local header and the central directory.
    const evil = Buffer.from(zip.toString('latin1').replaceAll('ok.png', '../x.p'), 'latin1');
    const res = await upload(csvForm(`${HEADER}\nA,B,C,a@example.com,,,,`, evil));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/\.\.\/x\.p|path|unsafe|invalid/i);
  });

  it('serves the CSV template publicly with every column and an example row', async () => {
    const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint/template/csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/csv/);
    const [header, example] = (await res.text()).trim().split(/\r?\n/);
    for (const column of ['name', 'description', 'category', 'recipientEmail', 'imageUrl', 'expiryDays']) {
      expect(header!.split(',')).toContain(column);
    }
    expect(header).toMatch(/attribute_/);
    expect(example!.length).toBeGreaterThan(10);
  });
});

describeDeveloperExperience(() => stack);
