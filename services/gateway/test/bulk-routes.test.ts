// The gateway's bulk-mint surface: its HTTP ↔ gRPC mapping, proven against the real app
// (every plugin: auth, scopes, rate limits, error rendering, OpenAPI) talking real gRPC to
// an in-test server. That server plays the downstream services: BulkService records each
// call and answers what a test sets; KeysService answers key verification and sessions so
// the real key verifier and session path run.
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  bind,
  createLogger,
  generateApiKey,
  HallmarkError,
  newId,
  sha256Hex,
  startGrpcServer,
  type AsyncHandlers,
  type RunningGrpcServer,
} from '@hallmark/kit';
import { BulkServiceService, type BulkServiceServer, type Job } from '@hallmark/proto/bulk/v1/bulk';
import { KeysServiceService, type KeyAuth, type KeysServiceServer } from '@hallmark/proto/keys/v1/keys';
import { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { createConnection } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { App } from '../src/app.js';
import type { Clients } from '../src/clients.js';

// Jest's module runtime cannot load the docs UI's ESM-only dependency (content-disposition
// via @fastify/static); the UI at /docs plays no part here, so only it is swapped for a
// no-op plugin. /openapi.json (@fastify/swagger) and every other plugin are the real ones.
jest.unstable_mockModule('@fastify/swagger-ui', () => ({ default: async () => undefined }));
const { buildApp } = await import('../src/app.js');
const { createClients } = await import('../src/clients.js');
const { configSchema } = await import('../src/config.js');
const { KeyVerifier } = await import('../src/auth/key-verifier.js');
const { createSessionVerifier } = await import('../src/auth/session.js');
const { UsageRecorder } = await import('../src/auth/usage-recorder.js');

const SECRET = 's'.repeat(40);
const ENT = newId('enterprise');
const MB = 1024 * 1024;

// ---- the downstream services ----

type Bulk = AsyncHandlers<BulkServiceServer>;
const calls: { method: string; req: any }[] = [];
let answers: Partial<{ [K in keyof Bulk]: (req: any) => Promise<any> }> = {};
const callsOf = (method: string) => calls.filter((c) => c.method === method).map((c) => c.req);

const job = (over: Partial<Job> = {}): Job => ({
  id: 'job_A',
  form: 'csv',
  status: 'queued',
  total_count: 3,
  processed_count: 0,
  success_count: 0,
  failed_count: 0,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:01.000Z',
  errors: [],
  vouchers: [],
  livemode: true,
  estimated_duration_s: 0,
  more_errors: false,
  ...over,
});

const voucher = (i: number) => ({
  id: `v_${i}`,
  url: `https://h.test/v/v_${i}`,
  reference_number: `REF-${i}`,
  metadata_json: JSON.stringify({ name: `Lamp ${i}`, sku: 'L1' }),
  certificate_id: `cert_${i}`,
  token_id: i,
  transaction_hash: '0xabc',
  block_number: 7,
  line_item_gid: 'gid://shopify/LineItem/1',
  row: i,
  expires_at: '2025-02-01T00:00:00.000Z',
});

const defaults: Bulk = {
  createCsvJob: async () => job(),
  createOrderJob: async () => job({ form: 'order' }),
  getJob: async () => job(),
  listJobs: async () => ({ jobs: [], page: { page: 1, limit: 20, total: 0, total_pages: 0 } }),
  retryJob: async () => ({ job: job({ status: 'queued' }), retried_count: 2, message: 'Retrying 2 items.' }),
  cancelJob: async () => job({ status: 'cancelled', processed_count: 1 }),
  fixItem: async (req) => ({ row: req.row, name: 'x', status: 'failed', error: 'Corrected.' }),
  exportJob: async () => ({
    content: Buffer.from('row,name\n1,a\n'),
    content_type: 'text/csv',
    filename: 'x.csv',
  }),
  getMedia: async () => ({ content: Buffer.from('PNGDATA'), content_type: 'image/png', sha256: 'ab12' }),
  costPreview: async (req) => ({
    count: req.count,
    currency: 'USD',
    unit_price: 50,
    total_price: 50 * req.count,
    estimated_gas: 1000 * req.count,
    estimated_gas_per_certificate: 1000,
    batches: 1,
  }),
  csvTemplate: async () => ({
    content: Buffer.from('name,description\n'),
    content_type: 'text/csv; charset=utf-8',
    filename: 'bulk-mint-template.csv',
  }),
  // Server-streaming: the fakes answer the stream's messages as an array.
  streamJobVouchers: (async () => []) as never,
  streamJobErrors: (async () => []) as never,
  exportJobStream: (async () => [
    { content: Buffer.alloc(0), content_type: 'text/csv', filename: 'x.csv' },
    { content: Buffer.from('row,name\n1,a\n'), content_type: '', filename: '' },
  ]) as never,
};

const bulkHandlers = Object.fromEntries(
  Object.entries(defaults).map(([method, fallback]) => [
    method,
    async (req: any) => {
      calls.push({ method, req });
      return ((answers as any)[method] ?? fallback)(req);
    },
  ]),
) as unknown as Bulk;

const keyAuths = new Map<string, KeyAuth>();
/** A fresh enterprise key (its own rate-limit counters) holding `permissions`. */
function newKey(permissions: string[], over: Partial<KeyAuth> = {}): string {
  const secret = generateApiKey('enterprise');
  keyAuths.set(sha256Hex(secret), {
    key_id: newId('apiKey'),
    enterprise_id: ENT,
    type: 'enterprise',
    livemode: true,
    permissions,
    rate_limit_per_minute: 1000,
    rate_limit_per_hour: 1000,
    burst_limit: 100,
    allowed_ips: [],
    expires_at: '',
    grace_until: '',
    created_by: 'user_x',
    ...over,
  });
  return secret;
}

const keysHandlers = {
  verifyKey: async (req: { secret_hash: string }) => {
    const key = keyAuths.get(req.secret_hash);
    if (!key) throw new HallmarkError('invalid_api_key');
    return { key };
  },
  resolveSession: async (req: { enterprise_id: string; role: string }) => ({
    user_id: 'user_1',
    enterprise_id: req.enterprise_id,
    role: req.role || 'owner',
  }),
  recordUsage: async () => ({}),
} as unknown as AsyncHandlers<KeysServiceServer>;

// ---- the gateway ----

let server: RunningGrpcServer;
let clients: Clients;
let app: App;
let baseUrl: string;
/** The same gateway on the Redis limiter store, when Redis runs on 127.0.0.1:6379. */
let redisApp: App | undefined;
let redis: Redis | undefined;
let redisBaseUrl: string | undefined;
const redisUp = await new Promise<boolean>((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port: 6379 });
  socket.once('connect', () => (socket.destroy(), resolve(true)));
  socket.once('error', () => resolve(false));
});
let session: string;

beforeAll(async () => {
  const log = createLogger('bulk-routes-test', 'silent');
  server = await startGrpcServer({
    name: 'fake-downstream',
    address: '127.0.0.1:0',
    services: [
      bind<BulkServiceServer>(BulkServiceService, bulkHandlers),
      bind<KeysServiceServer>(KeysServiceService, keysHandlers),
    ],
    log,
  });
  const addr = `127.0.0.1:${server.port}`;
  const config = configSchema.parse({
    HALLMARK_KEYS_ADDR: addr,
    HALLMARK_BULK_ADDR: addr,
    HALLMARK_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
  });
  clients = createClients(config);
  app = await buildApp({
    config,
    clients,
    verifier: new KeyVerifier(clients.keys, 5000),
    verifySession: createSessionVerifier({ secret: SECRET }),
    usage: new UsageRecorder(clients.keys, log),
    logLevel: 'silent',
  });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  if (redisUp) {
    redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });
    redisApp = await buildApp({
      config,
      clients,
      verifier: new KeyVerifier(clients.keys, 5000),
      verifySession: createSessionVerifier({ secret: SECRET }),
      usage: new UsageRecorder(clients.keys, log),
      logLevel: 'silent',
      redis,
    });
    redisBaseUrl = await redisApp.listen({ port: 0, host: '127.0.0.1' });
  }
  session = await new SignJWT({ ent: ENT, role: 'owner' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
});

afterAll(async () => {
  await redisApp?.close();
  redis?.disconnect();
  await app?.close();
  clients?.close();
  await server?.shutdown(1000);
});

beforeEach(() => {
  calls.length = 0;
  answers = {};
});

// ---- helpers ----

interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  rawPayload: Buffer;
  json(): any;
}

/** Real HTTP to the listening gateway (light-my-request has the same ESM trouble under jest). */
async function http(opts: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
  /** Another gateway of the test (the Redis-backed one). */
  base?: string;
}): Promise<Reply> {
  const res = await fetch((opts.base ?? baseUrl) + opts.url, {
    method: opts.method,
    headers: opts.headers,
    body: opts.payload,
    signal: AbortSignal.timeout(30_000),
  });
  const rawPayload = Buffer.from(await res.arrayBuffer());
  const body = rawPayload.toString();
  return {
    statusCode: res.status,
    headers: Object.fromEntries(res.headers),
    body,
    rawPayload,
    json: () => JSON.parse(body),
  };
}

interface Part {
  name: string;
  content: string | Buffer;
  filename?: string;
}

function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----hm${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const CSV =
  'name,description,imageUrl,category,recipientEmail\nLamp,Brass,https://i.test/l.png,art,a@b.test\n';
const metadata = (content: string | Buffer = CSV): Part => ({
  name: 'metadata',
  filename: 'jobs.csv',
  content,
});

async function upload(parts: Part[], key = newKey(['bulk:mint'])) {
  const { payload, headers } = multipart(parts);
  return http({
    method: 'POST',
    url: '/api/bulk-mint',
    payload,
    headers: { ...headers, 'x-api-key': key },
  });
}

function postOrder(body: string, headers: Record<string, string> = {}, key = newKey(['bulk:mint'])) {
  return http({
    method: 'POST',
    url: '/api/bulk-mint',
    payload: body,
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
  });
}

const ORDER = JSON.stringify({
  schemaVersion: '2025-09-01',
  metadata: [{ name: 'Lamp', description: 'Brass', imageUrl: 'https://i.test/l.png' }],
  externalContext: {
    source: 'shopify',
    shop: 's.myshopify.com',
    orderId: 'gid://shopify/Order/1',
    lineItems: [{ lineItemGid: 'gid://shopify/LineItem/1', quantity: 2 }],
  },
});
const IDEM = { 'idempotency-key': 's.myshopify.com#gid://shopify/Order/1#gid://shopify/LineItem/1#abc' };

const get = (url: string, headers: Record<string, string> = { 'x-api-key': newKey(['bulk:mint']) }) =>
  http({ method: 'GET', url, headers });

// ---- tests ----

describe('POST /api/bulk-mint, CSV form (multipart/form-data)', () => {
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
        createdAt: '2025-01-01T00:00:00.000Z',
        pollUrl: '/api/bulk-mint/job_A',
      },
    });
    expect(res.headers.location).toBe('/api/bulk-mint/job_A');
    const [req] = callsOf('createCsvJob');
    expect(callsOf('createCsvJob')).toHaveLength(1);
    expect(Buffer.from(req.csv).toString()).toBe(CSV);
    expect(Buffer.from(req.zip).equals(zip)).toBe(true);
    expect(req).toMatchObject({ create_batch: true, csv_filename: 'jobs.csv', zip_filename: 'images.zip' });
    expect(req.principal).toMatchObject({ enterprise_id: ENT, actor_type: 'api_key', livemode: true });
  });

  it('accepts a user session as well as an API key; images and createBatch are optional', async () => {
    const { payload, headers } = multipart([metadata()]);
    const res = await http({
      method: 'POST',
      url: '/api/bulk-mint',
      payload,
      headers: { ...headers, authorization: `Bearer ${session}` },
    });
    expect(res.statusCode).toBe(202);
    const [req] = callsOf('createCsvJob');
    expect(req.create_batch).toBe(false);
    expect(req.zip).toBeUndefined();
    expect(req.principal).toMatchObject({ enterprise_id: ENT, actor_type: 'user' });
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
      expect(calls).toEqual([]);
    },
  );

  it('refuses more parts than the form has with a 400', async () => {
    const files = [
      metadata(),
      { name: 'images', filename: 'i.zip', content: 'PK' },
      { name: 'x', filename: 'y', content: 'z' },
    ];
    const res = await upload(files);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'parameter_unknown' });
    expect(calls).toEqual([]);
  });

  it('a malformed multipart body is a 400, never a 5xx', async () => {
    const res = await http({
      method: 'POST',
      url: '/api/bulk-mint',
      payload: 'not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz', 'x-api-key': newKey(['bulk:mint']) },
    });
    expect(res.statusCode).toBe(400);
    expect(calls).toEqual([]);
  });

  it('over real HTTP, an oversize metadata or images file is a prompt 400 and the server keeps serving', async () => {
    const key = newKey(['bulk:mint']);
    const send = async (parts: Part[]) => {
      const { payload, headers } = multipart(parts);
      const res = await fetch(`${baseUrl}/api/bulk-mint`, {
        method: 'POST',
        headers: { ...headers, 'x-api-key': key },
        body: payload,
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
    expect(calls).toEqual([]);
    expect((await send([metadata()])).status).toBe(202);
  }, 60_000);

  it.each([
    ['text/plain', 'name\n'],
    ['application/x-www-form-urlencoded', 'metadata=x'],
  ])('refuses Content-Type %s with 400 invalid_content_type', async (type, payload) => {
    const res = await http({
      method: 'POST',
      url: '/api/bulk-mint',
      payload,
      headers: { 'content-type': type, 'x-api-key': newKey(['bulk:mint']) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'invalid_content_type' });
  });
});

describe('POST /api/bulk-mint, order form (application/json)', () => {
  it('needs an Idempotency-Key header (400 naming it, before the body reaches the service)', async () => {
    const res = await postOrder(ORDER);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'parameter_missing', param: 'Idempotency-Key' });
    expect(calls).toEqual([]);
  });

  it('passes the body as received and the key; a finished job answers 201 with its vouchers', async () => {
    answers.createOrderJob = async () =>
      job({
        id: 'job_S',
        form: 'order',
        status: 'completed',
        total_count: 2,
        processed_count: 2,
        success_count: 2,
        vouchers: [voucher(1), voucher(2)],
      });
    const raw = `  ${ORDER}\n`;
    const res = await postOrder(raw, IDEM);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      jobId: 'job_S',
      status: 'completed',
      summary: { totalItems: 2, successCount: 2, failureCount: 0 },
      vouchers: [1, 2].map((i) => ({
        id: `v_${i}`,
        url: `https://h.test/v/v_${i}`,
        referenceNumber: `REF-${i}`,
        metadata: { name: `Lamp ${i}`, sku: 'L1' },
      })),
    });
    const [req] = callsOf('createOrderJob');
    expect(req.body_json).toBe(raw);
    expect(req.idempotency_key).toBe(IDEM['idempotency-key']);
  });

  it('a job left running answers 201 pending with estimatedDuration and pollUrl', async () => {
    answers.createOrderJob = async () =>
      job({ id: 'job_P', form: 'order', status: 'queued', total_count: 40, estimated_duration_s: 12 });
    const res = await postOrder(ORDER, IDEM);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      jobId: 'job_P',
      status: 'pending',
      estimatedDuration: 12,
      pollUrl: '/api/bulk-mint/job_P',
    });
  });

  it('a reused Idempotency-Key is 409 {success:false, error, existingJobId, status}', async () => {
    answers.createOrderJob = async () => {
      throw new HallmarkError('resource_already_exists', {
        message: 'A job with this Idempotency-Key already exists.',
        extras: { existingJobId: 'job_E', status: 'queued' },
      });
    };
    const res = await postOrder(ORDER, IDEM);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      success: false,
      error: 'A job with this Idempotency-Key already exists.',
      existingJobId: 'job_E',
      status: 'pending',
    });
  });

  it('the service’s field-named validation errors come through as 400s', async () => {
    answers.createOrderJob = async () => {
      throw new HallmarkError('parameter_invalid', {
        param: 'metadata[0].imageUrl',
        message: 'imageUrl must be HTTPS.',
      });
    };
    const res = await postOrder(ORDER, IDEM);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'parameter_invalid',
      param: 'metadata[0].imageUrl',
    });
  });

  it('takes an order body far above the default body limit, refuses one above 32 MB, and an empty one', async () => {
    const big = JSON.stringify({ schemaVersion: '2025-09-01', pad: 'x'.repeat(3 * MB) });
    expect((await postOrder(big, IDEM)).statusCode).toBe(201);
    expect(callsOf('createOrderJob')[0].body_json).toHaveLength(big.length);
    const huge = await postOrder(`"${'x'.repeat(32 * MB)}"`, IDEM);
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toMatchObject({ code: 'payload_too_large' });
    const empty = await postOrder('', IDEM);
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'malformed_json' });
    expect(callsOf('createOrderJob')).toHaveLength(1);
  });
});

describe('GET /api/bulk-mint/:jobId', () => {
  it('a CSV job is {success, data: job}; estimatedCompletionTime only while processing', async () => {
    answers.getJob = async () =>
      job({
        status: 'processing',
        processed_count: 2,
        success_count: 1,
        failed_count: 1,
        estimated_completion_time: '2025-01-01T00:10:00.000Z',
        errors: [{ row: 3, error: 'recipientEmail is not a valid e-mail' }],
      });
    const res = await get('/api/bulk-mint/job_A');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        jobId: 'job_A',
        status: 'processing',
        totalCount: 3,
        processedCount: 2,
        successCount: 1,
        failedCount: 1,
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:00:01.000Z',
        estimatedCompletionTime: '2025-01-01T00:10:00.000Z',
        errors: [{ row: 3, error: 'recipientEmail is not a valid e-mail' }],
      },
    });
    expect(callsOf('getJob')[0]).toMatchObject({ job_id: 'job_A', include_vouchers: true });

    answers.getJob = async () =>
      job({
        status: 'failed',
        completed_at: '2025-01-01T00:20:00.000Z',
        estimated_completion_time: '2025-01-01T00:10:00.000Z',
        error: 'chain unavailable',
      });
    const failed = (await get('/api/bulk-mint/job_A')).json().data;
    expect(failed).toMatchObject({
      status: 'failed',
      completedAt: '2025-01-01T00:20:00.000Z',
      error: 'chain unavailable',
    });
    expect(failed).not.toHaveProperty('estimatedCompletionTime');
  });

  it('an order job is {success, job} with queued shown as pending, progress and voucher results', async () => {
    answers.getJob = async () =>
      job({ id: 'job_O', form: 'order', status: 'queued', total_count: 40, processed_count: 0 });
    expect((await get('/api/bulk-mint/job_O')).json()).toEqual({
      success: true,
      job: {
        id: 'job_O',
        status: 'pending',
        progress: { current: 0, total: 40, percentage: 0 },
        summary: { totalItems: 40, successCount: 0, failureCount: 0 },
        results: { vouchers: [], nextCursor: null },
        createdAt: '2025-01-01T00:00:00.000Z',
        completedAt: null,
      },
    });
    answers.getJob = async () =>
      job({
        id: 'job_O',
        form: 'order',
        status: 'completed',
        total_count: 3,
        processed_count: 3,
        success_count: 2,
        failed_count: 1,
        completed_at: '2025-01-01T00:05:00.000Z',
        processing_time_ms: 4200,
        vouchers: [voucher(1)],
      });
    const { job: done } = (await get('/api/bulk-mint/job_O')).json();
    expect(done).toMatchObject({
      status: 'completed',
      progress: { current: 3, total: 3, percentage: 100 },
      summary: { totalItems: 3, successCount: 2, failureCount: 1, processingTime: 4200 },
      completedAt: '2025-01-01T00:05:00.000Z',
    });
    expect(done.results.vouchers).toEqual([
      {
        id: 'v_1',
        url: 'https://h.test/v/v_1',
        referenceNumber: 'REF-1',
        metadata: { name: 'Lamp 1', sku: 'L1' },
        certificateId: 'cert_1',
        tokenId: 1,
        transactionHash: '0xabc',
        blockNumber: 7,
        lineItemGid: 'gid://shopify/LineItem/1',
      },
    ]);
    answers.getJob = async () =>
      job({ form: 'order', status: 'processing', total_count: 3, processed_count: 2 });
    expect((await get('/api/bulk-mint/job_O')).json().job.progress.percentage).toBe(66);
  });

  it('another enterprise’s or an unknown job is a 404 in the unversioned style', async () => {
    answers.getJob = async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such job.' });
    };
    const res = await get('/api/bulk-mint/job_X');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'resource_not_found' });
  });
});

describe('GET /api/bulk-mint (list)', () => {
  it('defaults to page 1, limit 20, all statuses, and shapes jobs and pagination', async () => {
    answers.listJobs = async () => ({
      jobs: [job(), job({ id: 'job_B', status: 'completed', completed_at: '2025-01-02T00:00:00.000Z' })],
      page: { page: 1, limit: 20, total: 2, total_pages: 1 },
    });
    const res = await get('/api/bulk-mint');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, totalItems: 2 });
    expect(body.data.jobs.map((j: { jobId: string }) => j.jobId)).toEqual(['job_A', 'job_B']);
    expect(body.data.jobs[1]).toMatchObject({
      status: 'completed',
      completedAt: '2025-01-02T00:00:00.000Z',
      errors: [],
    });
    expect(callsOf('listJobs')[0]).toMatchObject({ page: { page: 1, limit: 20 } });
    expect(callsOf('listJobs')[0].status).toBeUndefined();
  });

  it('passes status, page and limit; accepts the key in ?api_key', async () => {
    const key = newKey(['bulk:mint']);
    const res = await get(`/api/bulk-mint?status=failed&page=3&limit=100&api_key=${key}`, {});
    expect(res.statusCode).toBe(200);
    expect(callsOf('listJobs')[0]).toMatchObject({ status: 'failed', page: { page: 3, limit: 100 } });
  });

  it.each([
    ['status=done', 'status'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['page=x', 'page'],
  ])('refuses %s with 400 param %s', async (query, param) => {
    const res = await get(`/api/bulk-mint?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param });
    expect(calls).toEqual([]);
  });
});

describe('retry, cancel and download', () => {
  it('retry needs bulk:retry (403 naming it with only bulk:mint) and answers retriedCount', async () => {
    const denied = await http({
      method: 'POST',
      url: '/api/bulk-mint/job_A/retry',
      headers: { 'x-api-key': newKey(['bulk:mint']) },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      code: 'insufficient_permissions',
      required_permission: 'bulk:retry',
    });
    const res = await http({
      method: 'POST',
      url: '/api/bulk-mint/job_A/retry',
      headers: { 'x-api-key': newKey(['bulk:retry']) },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { jobId: 'job_A', status: 'queued', retriedCount: 2, message: 'Retrying 2 items.' },
    });
  });

  it('cancel answers the job’s status and counts', async () => {
    const res = await http({
      method: 'POST',
      url: '/api/bulk-mint/job_A/cancel',
      headers: { 'x-api-key': newKey(['bulk:mint']) },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        jobId: 'job_A',
        status: 'cancelled',
        message: expect.stringContaining('cancelled'),
        processedCount: 1,
        totalCount: 3,
      },
    });
  });

  it('download sends the file as an attachment with nosniff; type is csv or zip', async () => {
    answers.exportJobStream = (async () => [
      { content: Buffer.alloc(0), content_type: 'application/zip', filename: 'job_A "results".zip' },
      { content: Buffer.from('PK'), content_type: '', filename: '' },
      { content: Buffer.from('\x05\x06'), content_type: '', filename: '' },
    ]) as never;
    const res = await get('/api/bulk-mint/job_A/download/zip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="job_A__results_.zip"');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.equals(Buffer.from('PK\x05\x06'))).toBe(true);
    expect(callsOf('exportJobStream')[0]).toMatchObject({ job_id: 'job_A', format: 'zip' });
    const bad = await get('/api/bulk-mint/job_A/download/pdf');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, param: 'type' });
  });
});

describe('authorisation and limits', () => {
  it('without bulk:mint every job route is 403; without a credential 401', async () => {
    const key = newKey(['voucher:create']);
    for (const [method, url] of [
      ['GET', '/api/bulk-mint'],
      ['GET', '/api/bulk-mint/job_A'],
      ['POST', '/api/bulk-mint'],
      ['POST', '/api/bulk-mint/job_A/cancel'],
      ['GET', '/api/bulk-mint/job_A/download/csv'],
    ] as const) {
      const res = await http({ method, url, headers: { 'x-api-key': key } });
      expect({ url, status: res.statusCode, body: res.json() }).toMatchObject({
        status: 403,
        body: { success: false, code: 'insufficient_permissions', required_permission: 'bulk:mint' },
      });
      expect((await http({ method, url })).statusCode).toBe(401);
    }
    expect(calls).toEqual([]);
  });

  it('a 429 on a bulk route carries Retry-After (group limit: 5 retries an hour)', async () => {
    const key = newKey(['bulk:retry']);
    const retry = () =>
      http({ method: 'POST', url: '/api/bulk-mint/job_A/retry', headers: { 'x-api-key': key } });
    for (let i = 0; i < 5; i++) expect((await retry()).statusCode).toBe(200);
    const res = await retry();
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json()).toMatchObject({ success: false, code: 'rate_limit_exceeded' });
  });

  describe.each([
    ['in-memory', () => baseUrl],
    ...(redisUp ? [['Redis', () => redisBaseUrl!] as const] : []),
  ])('on the %s limiter store', (_store, base) => {
    it('only accepted retries and row fixes use the shared 5-an-hour budget: rejected ones (400, 404) cost nothing, and the 429 names the wait', async () => {
      const key = newKey(['bulk:retry']);
      const send = (method: 'POST' | 'PATCH', body?: object) =>
        http({
          base: base(),
          method,
          url: method === 'POST' ? '/api/bulk-mint/job_A/retry' : '/api/bulk-mint/job_A/items/7',
          headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { payload: JSON.stringify(body) } : {}),
        });
      // Rejected: an unknown job (404), a fix the service refuses (400), a fix the schema refuses (400).
      answers.retryJob = async () => {
        throw new HallmarkError('resource_not_found', { message: 'No such job.' });
      };
      answers.fixItem = async () => {
        throw new HallmarkError('parameter_invalid', { param: 'imageUrl', message: 'No image for row 7.' });
      };
      for (let i = 0; i < 3; i++) expect((await send('POST')).statusCode).toBe(404);
      for (let i = 0; i < 3; i++) expect((await send('PATCH', { name: 'Lamp' })).statusCode).toBe(400);
      for (let i = 0; i < 3; i++) expect((await send('PATCH', {})).statusCode).toBe(400);
      // Accepted: five, whatever the mix, then the budget is spent.
      answers = {};
      const accepted = [];
      for (let i = 0; i < 3; i++) accepted.push(await send('POST'));
      for (let i = 0; i < 2; i++) accepted.push(await send('PATCH', { name: 'Lamp' }));
      expect(accepted.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(accepted.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
      const refused = await send('POST');
      expect(refused.statusCode).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(3500);
      expect(refused.json()).toMatchObject({
        success: false,
        code: 'rate_limit_exceeded',
        retry_after: retryAfter,
        limit_window: 'bulk_retry',
      });
      expect(refused.json().error).toContain(`Retry after ${retryAfter} second(s)`);
      expect(refused.headers['x-ratelimit-limit']).toBe('5');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    });
  });

  it('the CSV form counts against bulk_create (10 jobs an hour) and the JSON form does not', async () => {
    const key = newKey(['bulk:mint']);
    for (let i = 0; i < 10; i++) expect((await upload([metadata()], key)).statusCode).toBe(202);
    const refused = await upload([metadata()], key);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await postOrder(ORDER, IDEM, key)).statusCode).toBe(201);
  });

  it('the JSON form’s 429 (the key’s own hourly limit) carries Retry-After too', async () => {
    const key = newKey(['bulk:mint'], { rate_limit_per_minute: 1, rate_limit_per_hour: 1, burst_limit: 1 });
    expect((await postOrder(ORDER, IDEM, key)).statusCode).toBe(201);
    const res = await postOrder(ORDER, IDEM, key);
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('public routes and cost preview', () => {
  it('the CSV template needs no credential and is a text/csv attachment', async () => {
    const res = await http({ method: 'GET', url: '/api/bulk-mint/template/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="bulk-mint-template.csv"');
    expect(res.body).toBe('name,description\n');
  });

  it('cost preview: billing.read or bulk:mint (or a session), count 1..50,000, the spec note', async () => {
    const res = await get('/api/billing/cost-preview/250', { 'x-api-key': newKey(['billing.read']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        count: 250,
        currency: 'USD',
        unitPrice: 50,
        totalPrice: 12_500,
        estimatedGas: 250_000,
        estimatedGasPerCertificate: 1000,
        batches: 1,
        note: 'Failed certificates are not charged.',
      },
    });
    expect(
      (await get('/api/billing/cost-preview/3', { authorization: `Bearer ${session}` })).statusCode,
    ).toBe(200);
    // A bulk key may preview what its jobs cost; a key with neither scope may not.
    expect(
      (await get('/api/billing/cost-preview/3', { 'x-api-key': newKey(['bulk:mint']) })).statusCode,
    ).toBe(200);
    const denied = await get('/api/billing/cost-preview/3', { 'x-api-key': newKey(['voucher:create']) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'insufficient_permissions' });
    for (const count of ['0', '-1', '1.5', 'abc', '50001']) {
      const bad = await get(`/api/billing/cost-preview/${count}`, { 'x-api-key': newKey(['billing.read']) });
      expect({ count, status: bad.statusCode, param: bad.json().param }).toEqual({
        count,
        status: 400,
        param: 'count',
      });
    }
  });
});

describe('OpenAPI', () => {
  it('documents every bulk route, with security on the authenticated ones and both request forms', async () => {
    const doc = (await http({ method: 'GET', url: '/openapi.json' })).json();
    const op = (path: string, method: string) => doc.paths[path]?.[method];
    for (const [path, method, scope] of [
      ['/api/bulk-mint', 'post', 'bulk:mint'],
      ['/api/bulk-mint', 'get', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}', 'get', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}/retry', 'post', 'bulk:retry'],
      ['/api/bulk-mint/{jobId}/cancel', 'post', 'bulk:mint'],
      ['/api/bulk-mint/{jobId}/download/{type}', 'get', 'bulk:mint'],
      ['/api/billing/cost-preview/{count}', 'get', ['billing.read', 'bulk:mint']],
    ] as const) {
      const scopes = typeof scope === 'string' ? [scope] : [...scope];
      expect(op(path, method)?.security).toEqual([
        { bearerAuth: [] },
        { apiKeyHeader: [] },
        { apiKeyQuery: [] },
        { sessionJwt: [] },
      ]);
      expect(op(path, method)['x-required-scopes']).toEqual(scopes);
      expect(op(path, method).operationId).toMatch(/^[a-z][A-Za-z]+$/);
    }
    for (const path of ['/api/bulk-mint/template/csv', '/media/{id}']) {
      expect(op(path, 'get')).toBeDefined();
      expect(op(path, 'get').security).toEqual([]);
    }
    const create = op('/api/bulk-mint', 'post');
    expect(Object.keys(create.requestBody.content).sort()).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
    expect(create.description).toContain('202');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '202', '409']));
  });
});
