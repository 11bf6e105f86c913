import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@hallmark/kit/testing';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;

beforeAll(async () => {
  // The operator's setting that adds each service's health to /readyz (public: status only).
  // Backends re-check their database and NATS every 300 ms (readiness tests below).
  stack = await startTestStack({
    env: { HALLMARK_READYZ_DETAIL: 'true', HALLMARK_READINESS_INTERVAL_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

describe('the dev stack', () => {
  it('comes up from nothing and /readyz sees every service over gRPC', async () => {
    const res = await stack.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.services).toEqual({
      keys: 'SERVING',
      vouchers: 'SERVING',
      certificates: 'SERVING',
      bulk: 'SERVING',
      notify: 'SERVING',
      platform: 'SERVING',
    });
  });
});

describe('honest health', () => {
  it('a stopped platform leaves the gateway ready and /verify/:id answering; platform routes answer 503 service_unavailable in their format', async () => {
    const session = await stack.token();
    await stack.processes.get('platform')!.stop();
    try {
      const ready = await stack.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ready', degraded: ['platform'] });
      expect(ready.body.services.platform).toBe('UNREACHABLE');
      // The public verification page still asks certificates: an unknown certificate is its 404 page.
      const page = await fetch(`${stack.gatewayUrl}/verify/cert_${'n'.repeat(24)}`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      // An unversioned platform route: {success: false, code, request_id}, 503, retryable.
      const res = await fetch(`${stack.gatewayUrl}/api/platform/integration/auto-provision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}` },
      });
      expect(res.status).toBe(503);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ success: false, code: 'service_unavailable' });
      expect(body.error).toEqual(expect.any(String));
      expect(body.request_id).toMatch(/^req_/);
      // Other backends' routes are untouched.
      expect((await stack.call('GET', '/api/v1/api-keys', { auth: session })).status).toBe(200);
    } finally {
      await stack.startService('platform');
    }
    await eventually(
      async () => expect((await stack.call('GET', '/readyz')).body.services.platform).toBe('SERVING'),
      { timeoutMs: 15_000 },
    );
  }, 60_000);

  it('a backend whose database refuses connections turns not ready (gRPC health NOT_SERVING) and its routes answer 503 in the error envelope; it is ready again once the database answers', async () => {
    const session = await stack.token();
    const database = `${stack.prefix}_vouchers`;
    const admin = new pg.Client({ connectionString: stack.postgres.url });
    await admin.connect();
    try {
      // Cut the service off: no new connections, and its pool's connections terminated.
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
        database,
      ]);
      await eventually(
        async () => expect((await stack.call('GET', '/readyz')).body.services.vouchers).toBe('NOT_SERVING'),
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      const ready = await stack.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.degraded).toEqual(['vouchers']);
      const res = await fetch(`${stack.gatewayUrl}/api/v1/vouchers`, {
        headers: { authorization: `Bearer ${session}` },
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        type: 'api_error',
        code: 'service_unavailable',
      });
    } finally {
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await eventually(
      async () => expect((await stack.call('GET', '/readyz')).body.services.vouchers).toBe('SERVING'),
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect((await stack.call('GET', '/api/v1/vouchers', { auth: session })).status).toBe(200);
  }, 60_000);
});

describe('gateway errors through the real gateway', () => {
  it('an unknown versioned route is a 404 in the error envelope with a request id', async () => {
    const res = await stack.call('GET', '/api/v1/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'resource_error', code: 'resource_not_found' });
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(res.body.error.request_id).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
  });

  it('an unknown unversioned route is a 404 with success: false', async () => {
    const res = await stack.call('GET', '/api/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'resource_not_found' });
    expect(res.body.request_id).toMatch(/^req_/);
  });

  it('a known path with the wrong method is a 405 naming the allowed methods', async () => {
    const res = await stack.call('PUT', '/api/v1/api-keys');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('malformed JSON is a 400 malformed_json, never a 5xx', async () => {
    const token = await stack.token();
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      raw: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'malformed_json' });
  });

  it('a body in the wrong content type is refused with invalid_content_type', async () => {
    const token = await stack.token();
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_content_type');
  });

  it('an unknown field on a closed schema is parameter_unknown naming the field', async () => {
    const token = await stack.token();
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      body: { name: 'k', type: 'test', permissions: ['admin.*'], colour: 'red' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('an oversized body is refused before it is read whole', async () => {
    const token = await stack.token();
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      body: { name: 'x'.repeat(2 * 1024 * 1024), type: 'test' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('responses carry security headers', async () => {
    const res = await stack.call('GET', '/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('serves OpenAPI 3.1 and the docs page', async () => {
    const spec = await stack.call('GET', '/openapi.json');
    expect(spec.body.openapi).toBe('3.1.0');
    expect(Object.keys(spec.body.paths)).toContain('/api/v1/api-keys');
    const docs = await fetch(`${stack.gatewayUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });
});

describe('request ids', () => {
  it('travel from the gateway through gRPC into the event the service commits', async () => {
    const nc = await connect({ servers: stack.nats.url });
    const sub = nc.subscribe('hallmark.keys.key.created', { max: 1 });
    const token = await stack.token();
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: token,
      body: { name: 'traced', type: 'test', permissions: ['transactions.read'] },
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('x-request-id');
    for await (const msg of sub) {
      const event = msg.json<{ request_id: string; data: { id: string } }>();
      expect(event.data.id).toBe(res.body.id);
      expect(event.request_id).toBe(requestId);
      expect(msg.headers?.get('x-request-id')).toBe(requestId);
    }
    await nc.close();
  });
});
