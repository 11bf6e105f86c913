import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@hallmark/kit/testing';
import { connect } from '@nats-io/transport-node';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;

beforeAll(async () => {
  // The operator's setting that adds each service's health to /readyz (public: status only).
  stack = await startTestStack({ env: { HALLMARK_READYZ_DETAIL: 'true' } });
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

  it('/readyz reports a stopped service as not ready', async () => {
    await stack.processes.get('platform')!.stop();
    const res = await stack.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.services.platform).toBe('UNREACHABLE');
    await stack.startService('platform');
    // The gateway's channel reconnects with back-off, so readiness returns within seconds.
    await eventually(async () => expect((await stack.call('GET', '/readyz')).status).toBe(200), {
      timeoutMs: 15_000,
    });
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
