// routes/health/: liveness and readiness. Hidden from the OpenAPI document (and so from the
// route catalogue), so they are tested here by hand under names the catalogue test does not read.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());

describe('liveness: GET /healthz', () => {
  it('answers 200 {status: ok} without a credential and without asking any service', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(h.calls).toEqual([]);
  });
});

describe('readiness: GET /readyz', () => {
  it('is ready while the gateway runs, whatever the backends do; tells the public no backend; is not cached', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
