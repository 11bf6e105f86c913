// routes/platform/: the app install (authorize, the platform's callback), integration
// credentials and settings, fulfillment retry and the platform's inbound webhooks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const SHOP = 'my-shop.myshopify.com';

describe('POST /api/platform/auth/authorize', () => {
  const req = { method: 'POST' as const, url: '/api/platform/auth/authorize', payload: { shop: SHOP } };

  it("answers the platform's authorize URL for the session's enterprise", async () => {
    h.answer('platform', 'authorize', async () => ({ auth_url: 'https://platform.test/authorize?state=s' }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, authUrl: 'https://platform.test/authorize?state=s' });
    expect(h.callsTo('platform', 'authorize')[0]).toMatchObject({ shop: SHOP });
  });

  it('refuses a shop that is not a domain with 400 naming shop, before any call', async () => {
    const res = await h.app.inject({ ...req, payload: { shop: '../evil' }, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'shop' });
    expect(h.calls).toEqual([]);
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps another enterprise's shop (404) to the api envelope", async () => {
    await expectMapped(h, ['platform', 'authorize'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('GET /api/platform/auth/callback', () => {
  const url = `/api/platform/auth/callback?code=c&hmac=h&shop=${SHOP}&state=s&timestamp=1`;

  it('redirects the merchant to the app (302, never cached)', async () => {
    h.answer('platform', 'callback', async () => ({ redirect_url: 'https://app.test/setup?token=t' }));
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://app.test/setup?token=t');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers a refused install with an HTML page through the shared shell, never JSON', async () => {
    h.answer('platform', 'callback', async () => {
      throw new HallmarkError('invalid_token', { message: 'The install signature is invalid.' });
    });
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('The install was not completed');
  });

  it('answers a callback missing its signed fields with a 400 page, before any call', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/api/platform/auth/callback?shop=${SHOP}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(h.calls).toEqual([]);
  });
});
