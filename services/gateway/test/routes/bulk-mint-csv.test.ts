// POST /api/bulk-mint, the CSV form (multipart/form-data): the gateway parses the form itself
// (parts, sizes, booleans) and hands the files to CreateCsvJob, so every refusal of the form
// is proven here, before any call. Over real HTTP where the proof is the socket's (a large
// upload refused at its first part is drained, and the server keeps serving).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ENT, startHarness, type Harness } from './harness.js';
import { bulkJob, multipart, type Part } from './fixtures.js';

const MB = 1024 * 1024;
const CSV =
  'name,description,imageUrl,category,recipientEmail\nLamp,Brass,https://i.test/l.png,art,a@b.test\n';
const metadata = (content: string | Buffer = CSV): Part => ({
  name: 'metadata',
  filename: 'jobs.csv',
  content,
});

let h: Harness;
let baseUrl: string;
beforeAll(async () => {
  h = await startHarness();
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
}, 120_000);
afterAll(() => h.close());
beforeEach(() => {
  h.reset();
  h.answer('bulk', 'createCsvJob', async () => bulkJob());
});

function upload(parts: Part[], headers: Record<string, string> = h.keyWith(['bulk:mint'])) {
  const form = multipart(parts);
  return h.app.inject({
    method: 'POST',
    url: '/api/bulk-mint',
    payload: form.payload,
    headers: { ...form.headers, ...headers },
  });
}

describe('POST /api/bulk-mint', () => {
  it('reads metadata, images and createBatch, calls CreateCsvJob once and answers 202 with the job counts', async () => {
    const zip = Buffer.from('PK\x03\x04zipbytes');
    const res = await upload([
      metadata(),
      { name: 'images', filename: 'images.zip', content: zip },
      { name: 'createBatch', content: 'true' },
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      success: true,
      data: {
        jobId: 'job_A',
        status: 'queued',
        totalCount: 3,
        processedCount: 0,
        successCount: 0,
        failedCount: 0,
        failureCount: 0,
        createdAt: '2025-01-01T00:00:00.000Z',
        pollUrl: '/api/bulk-mint/job_A',
      },
    });
    expect(res.headers.location).toBe('/api/bulk-mint/job_A');
    const sent = h.callsTo('bulk', 'createCsvJob');
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0].csv).toString()).toBe(CSV);
    expect(Buffer.from(sent[0].zip).equals(zip)).toBe(true);
    expect(sent[0]).toMatchObject({
      create_batch: true,
      csv_filename: 'jobs.csv',
      zip_filename: 'images.zip',
    });
    expect(sent[0].principal).toMatchObject({ enterprise_id: ENT, actor_type: 'api_key', livemode: true });
  });

  it('accepts a user session as well as an API key; images and createBatch are optional', async () => {
    const res = await upload([metadata()], h.session);
    expect(res.statusCode).toBe(202);
    const [sent] = h.callsTo('bulk', 'createCsvJob');
    expect(sent.create_batch).toBe(false);
    expect(sent.zip).toBeUndefined();
    expect(sent.principal).toMatchObject({ enterprise_id: ENT, actor_type: 'user' });
  });

  it.each([
    ['no metadata part', [{ name: 'createBatch', content: 'false' }], 'parameter_missing', 'metadata'],
    [
      'an empty file input for metadata',
      [{ name: 'metadata', filename: '', content: '' }],
      'parameter_missing',
      'metadata',
    ],
    ['metadata sent as a text field', [{ name: 'metadata', content: CSV }], 'parameter_invalid', 'metadata'],
    ['metadata sent twice', [metadata(), metadata()], 'parameter_invalid', 'metadata'],
    [
      'an unknown file part',
      [metadata(), { name: 'extra', filename: 'x.txt', content: 'x' }],
      'parameter_unknown',
      'extra',
    ],
    ['an unknown field', [metadata(), { name: 'colour', content: 'red' }], 'parameter_unknown', 'colour'],
    [
      'createBatch not a boolean',
      [metadata(), { name: 'createBatch', content: 'yes' }],
      'parameter_invalid',
      'createBatch',
    ],
    [
      'a metadata file over 10 MB',
      [metadata(Buffer.alloc(10 * MB + 1, 97))],
      'payload_too_large',
      'metadata',
    ],
  ] as [string, Part[], string, string][])(
    'refuses %s with a 400 naming the part, before calling the bulk service',
    async (_label, parts, code, param) => {
      const res = await upload(parts);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, code, param });
      expect(h.calls).toEqual([]);
    },
  );

  it('refuses more parts than the form has with a 400', async () => {
    const res = await upload([
      metadata(),
      { name: 'images', filename: 'i.zip', content: 'PK' },
      { name: 'x', filename: 'y', content: 'z' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'parameter_unknown' });
    expect(h.calls).toEqual([]);
  });

  it('a malformed multipart body is a 400, never a 5xx', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/bulk-mint',
      payload: 'not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz', ...h.keyWith(['bulk:mint']) },
    });
    expect(res.statusCode).toBe(400);
    expect(h.calls).toEqual([]);
  });

  it.each([
    ['text/plain', 'name\n'],
    ['application/x-www-form-urlencoded', 'metadata=x'],
  ])('refuses Content-Type %s with 400 invalid_content_type', async (type, payload) => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/bulk-mint',
      payload,
      headers: { 'content-type': type, ...h.keyWith(['bulk:mint']) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'invalid_content_type' });
  });

  it('over real HTTP, an oversize metadata or images file is a prompt 400 and the server keeps serving', async () => {
    const key = h.keyWith(['bulk:mint']);
    const send = async (parts: Part[]) => {
      const form = multipart(parts);
      const res = await fetch(`${baseUrl}/api/bulk-mint`, {
        method: 'POST',
        headers: { ...form.headers, ...key },
        body: form.payload,
        signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await send([metadata(Buffer.alloc(10 * MB + 1, 97))])).toMatchObject({
      status: 400,
      body: { code: 'payload_too_large', param: 'metadata' },
    });
    expect(
      await send([metadata(), { name: 'images', filename: 'i.zip', content: Buffer.alloc(100 * MB + 1) }]),
    ).toMatchObject({ status: 400, body: { code: 'payload_too_large', param: 'images' } });
    // Refused at its first part, the rest of a large upload is drained, not left hanging.
    expect(
      await send([{ name: 'extra', filename: 'x.bin', content: Buffer.alloc(20 * MB) }, metadata()]),
    ).toMatchObject({ status: 400, body: { code: 'parameter_unknown', param: 'extra' } });
    expect(h.calls).toEqual([]);
    expect((await send([metadata()])).status).toBe(202);
  }, 60_000);

  it('counts against bulk_create (10 jobs an hour per key); the JSON order form does not', async () => {
    const key = h.keyWith(['bulk:mint']);
    for (let i = 0; i < 10; i++) expect((await upload([metadata()], key)).statusCode).toBe(202);
    const refused = await upload([metadata()], key);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    h.answer('bulk', 'createOrderJob', async () => bulkJob({ form: 'order', status: 'completed' }));
    const order = await h.app.inject({
      method: 'POST',
      url: '/api/bulk-mint',
      payload: { schemaVersion: '2025-09-01', metadata: [{ name: 'Lamp' }] },
      headers: { ...key, 'idempotency-key': 'idem-csv-limit' },
    });
    expect(order.statusCode).toBe(201);
  });
});
