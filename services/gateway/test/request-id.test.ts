// The request id end to end at the gateway: a caller's well-formed `X-Request-Id` is echoed and
// is the id the service's gRPC call carries (so its logs name it); a malformed one is replaced
// by a fresh `req_…`; every answer is counted in the RED histogram under its route template.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { registry } from '@hallmark/kit';
import { startHarness, type Harness } from './routes/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => {
  h.reset();
  h.answer('vouchers', 'listVouchers', async () => ({
    vouchers: [],
    pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
  }));
});

const list = (headers: Record<string, string>) =>
  h.app.inject({
    method: 'GET',
    url: '/api/v1/vouchers',
    headers: { ...h.keyWith(['transactions.read']), ...headers },
  });

describe('X-Request-Id', () => {
  it.each([
    ['a UUID', '0b9e7c52-3f1a-4d2e-9c61-7a5b8e2f4d10'],
    ['our own form', 'req_4Q2m9XbT7cLp0aZ1yN8kVw3e'],
    ['a dotted id with a colon', 'lb-01.eu:8f3a2c1d'],
  ])('a well-formed one (%s) is echoed and forwarded to the service', async (_what, id) => {
    const res = await list({ 'x-request-id': id });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe(id);
    expect(h.calls.map((c) => c.requestId)).toEqual([id]);
  });

  it.each([
    ['too short', 'abc'],
    ['too long', 'a'.repeat(65)],
    ['with a space', 'hello world 123'],
    ['with a quote', 'abc"def123'],
    ['starting with a dash', '-abcdefgh'],
    ['with a newline escape', 'abcdefgh%0a'],
  ])('a malformed one (%s) is replaced by a fresh req_ id, echoed and forwarded', async (_what, id) => {
    const res = await list({ 'x-request-id': id });
    expect(res.statusCode).toBe(200);
    const got = res.headers['x-request-id'] as string;
    expect(got).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(h.calls.map((c) => c.requestId)).toEqual([got]);
  });

  it('without one a fresh req_ id is made, and it is the id in an error body', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/vouchers' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });

  it("a caller's id is the request_id of an error body too", async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/vouchers',
      headers: { 'x-request-id': 'trace-abc-12345' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.request_id).toBe('trace-abc-12345');
  });
});

describe('gateway RED metrics', () => {
  it('counts each answer under its route template, method and status, never the raw path', async () => {
    await list({});
    await h.app.inject({ method: 'GET', url: '/api/v1/vouchers/v_nothing_here' });
    const text = await registry.metrics();
    expect(text).toMatch(
      /hallmark_http_server_request_duration_seconds_count\{[^}]*method="GET",route="\/api\/v1\/vouchers",status_code="200"[^}]*\} [1-9]/,
    );
    expect(text).toMatch(/route="\/api\/v1\/vouchers\/:voucher_id",status_code="401"/);
    expect(text).not.toContain('v_nothing_here');
  });
});
