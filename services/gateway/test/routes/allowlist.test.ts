// routes/allowlist/: queue an address, check it, wait for its confirmation.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectRefusals, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const ADDR = '0x' + 'ab'.repeat(20);
const entry = (over: object = {}) => ({
  address: ADDR,
  status: 'pending',
  retry_count: 0,
  requested: true,
  timed_out: false,
  ...over,
});

describe('POST /api/v1/allowlist', () => {
  const req = { method: 'POST' as const, url: '/api/v1/allowlist', payload: { address: ADDR } };

  it('queues the address: 202 while pending, 200 once it is done', async () => {
    h.answer('allowlist', 'addToAllowlist', async () => entry());
    const queued = await h.app.inject({ ...req, headers: h.keyWith(['users.update']) });
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toMatchObject({
      address: ADDR,
      allowlistStatus: 'pending',
      allowlistRetryCount: 0,
    });
    expect(h.callsTo('allowlist', 'addToAllowlist')[0]).toMatchObject({ address: ADDR });
    h.answer('allowlist', 'addToAllowlist', async () => entry({ status: 'success', on_chain: true }));
    const done = await h.app.inject({ ...req, headers: h.keyWith(['users.update']) });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ allowlistStatus: 'success', onChain: true });
  });

  it('refuses a body without address (400) and unknown fields (400) before any call', async () => {
    const missing = await h.app.inject({ ...req, payload: {}, headers: h.keyWith(['users.update']) });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'parameter_missing', param: 'address' });
    const unknown = await h.app.inject({
      ...req,
      payload: { address: ADDR, extra: 1 },
      headers: h.keyWith(['users.update']),
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: 'parameter_unknown' });
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential, 403 without users.update', async () => {
    await expectRefusals(h, req, h.keyWith(['users.read']));
  });

  it("maps the service's parameter_invalid to the versioned envelope", async () => {
    await expectMapped(
      h,
      ['allowlist', 'addToAllowlist'],
      new HallmarkError('parameter_invalid', { param: 'address' }),
      {
        ...req,
        headers: h.session,
      },
    );
  });
});

describe('GET /api/v1/allowlist/check/:address', () => {
  const req = { method: 'GET' as const, url: `/api/v1/allowlist/check/${ADDR}` };

  it('answers the status and whether this enterprise requested it', async () => {
    h.answer('allowlist', 'checkAllowlist', async () => entry({ status: 'success', on_chain: true }));
    const res = await h.app.inject({ ...req, headers: h.keyWith(['users.read']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ address: ADDR, requested: true, onChain: true });
  });

  it('is 401 without a credential, 403 without users.read', async () => {
    await expectRefusals(h, req, h.keyWith(['users.update']));
  });

  it("maps the service's 404 to the versioned envelope", async () => {
    await expectMapped(h, ['allowlist', 'checkAllowlist'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('POST /api/v1/allowlist/wait-for-confirmation', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/v1/allowlist/wait-for-confirmation',
    payload: { address: ADDR, timeoutMs: 100 },
  };

  it('answers confirmed once the chain has the address, passing the wait on', async () => {
    h.answer('allowlist', 'waitForAllowlistConfirmation', async () =>
      entry({ status: 'success', on_chain: true }),
    );
    const res = await h.app.inject({ ...req, headers: h.keyWith(['users.read']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ confirmed: true, timedOut: false });
    expect(h.callsTo('allowlist', 'waitForAllowlistConfirmation')[0]).toMatchObject({ timeout_ms: 100 });
  });

  it('refuses a wait past 30 s with 400 naming timeoutMs', async () => {
    const res = await h.app.inject({
      ...req,
      payload: { address: ADDR, timeoutMs: 30_001 },
      headers: h.keyWith(['users.read']),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ param: 'timeoutMs' });
  });

  it('is 401 without a credential, 403 without users.read', async () => {
    await expectRefusals(h, req, h.keyWith(['users.update']));
  });

  it("maps another enterprise's address (404) to the versioned envelope", async () => {
    await expectMapped(
      h,
      ['allowlist', 'waitForAllowlistConfirmation'],
      new HallmarkError('resource_not_found'),
      {
        ...req,
        headers: h.session,
      },
    );
  });
});
