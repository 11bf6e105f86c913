// routes/platform/: the app install (authorize, the platform's callback), integration
// credentials and settings, fulfillment retry and the platform's inbound webhooks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { ENT, expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
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

/** A session route's guarantees: its answer, a session only, and the service's errors mapped. */
function sessionRoute(
  req: { method: 'POST' | 'PATCH'; url: string; payload: object },
  call: string,
  answer: () => object,
  shape: object,
  bad: { payload: object; param: string } | null,
  error: HallmarkError,
) {
  it('answers for the session’s enterprise and passes the request on', async () => {
    h.answer('platform', call as never, async () => answer());
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(shape);
    expect(h.callsTo('platform', call as never)).toHaveLength(1);
  });
  if (bad)
    it(`refuses bad input with 400 naming ${bad.param}, before any call`, async () => {
      const res = await h.app.inject({ ...req, payload: bad.payload, headers: h.session });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, param: bad.param });
      expect(h.calls).toEqual([]);
    });
  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });
  it(`maps the service's ${error.code} to ${error.httpStatus} in the api envelope`, async () => {
    await expectMapped(h, ['platform', call], error, { ...req, headers: h.session });
  });
}

const integration = {
  shop: SHOP,
  enterprise_id: 'ent_1',
  api_key_id: 'key_1',
  status: 'active',
  auto_fulfill: false,
  installed_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};

describe('POST /api/platform/integration/auto-provision', () =>
  sessionRoute(
    { method: 'POST', url: '/api/platform/integration/auto-provision', payload: {} },
    'autoProvision',
    () => ({
      enterprise_id: 'ent_1',
      api_key_id: 'key_1',
      api_key: 'hm_k',
      webhook_secret: 'ab',
      shop: '',
      return_url: '',
    }),
    { success: true, credentials: { apiKeyId: 'key_1', apiKey: 'hm_k', enterpriseId: 'ent_1' } },
    null, // no body
    new HallmarkError('service_unavailable'),
  ));

describe('POST /api/platform/webhooks/register', () =>
  sessionRoute(
    { method: 'POST', url: '/api/platform/webhooks/register', payload: { shop: SHOP } },
    'registerWebhooks',
    () => ({ shop: SHOP, topics: ['orders/paid'] }),
    { success: true, shop: SHOP, topics: ['orders/paid'] },
    { payload: {}, param: 'shop' },
    new HallmarkError('resource_not_found'),
  ));

describe('PATCH /api/platform/integration/settings', () =>
  sessionRoute(
    {
      method: 'PATCH',
      url: '/api/platform/integration/settings',
      payload: { shop: SHOP, settings: { autoFulfill: false } },
    },
    'updateSettings',
    () => integration,
    {
      success: true,
      integration: { shop: SHOP, settings: { autoFulfill: false, productTemplateMapping: null } },
    },
    { payload: { shop: SHOP }, param: 'settings' },
    new HallmarkError('resource_not_found'),
  ));

describe('GET /api/platform/integration', () => {
  const req = { method: 'GET' as const, url: `/api/platform/integration?shop=${SHOP}` };

  it('shows the integration with the last order that could not become its job', async () => {
    h.answer('platform', 'getIntegration', async () => ({
      ...integration,
      last_error: {
        code: 'parameter_missing',
        message: 'no image',
        param: 'metadata[0].imageUrl',
        order_id: 'gid://shopify/Order/7',
        order_name: '#1007',
        occurred_at: '2025-01-02T00:00:00.000Z',
      },
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json().integration.lastError).toEqual({
      code: 'parameter_missing',
      message: 'no image',
      param: 'metadata[0].imageUrl',
      orderId: 'gid://shopify/Order/7',
      orderName: '#1007',
      occurredAt: '2025-01-02T00:00:00.000Z',
    });
    expect(h.callsTo('platform', 'getIntegration')[0]).toMatchObject({ shop: SHOP });
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });
});

describe('GET /api/platform/integrations', () => {
  const req = { method: 'GET' as const, url: '/api/platform/integrations?page=2&limit=5' };

  it("lists the session's enterprise's integrations with the page asked for", async () => {
    h.answer('platform', 'listIntegrations', async () => ({
      integrations: [integration, { ...integration, shop: 'old-shop.myshopify.com', status: 'uninstalled' }],
      pagination: { page: 2, limit: 5, total: 7, total_pages: 2 },
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        integrations: [
          expect.objectContaining({ shop: SHOP, apiKeyId: 'key_1', status: 'active', lastError: null }),
          expect.objectContaining({ shop: 'old-shop.myshopify.com', status: 'uninstalled' }),
        ],
        pagination: { page: 2, limit: 5, totalPages: 2, totalItems: 7 },
      },
    });
    expect(res.json().data.integrations[0].settings).toEqual({
      autoFulfill: false,
      productTemplateMapping: null,
    });
    const [call] = h.callsTo('platform', 'listIntegrations');
    expect(call).toMatchObject({ page: { page: 2, limit: 5 } });
    expect(call.principal.enterprise_id).toBe(ENT);
  });

  it('refuses a limit over 100 with 400 naming it, before any call', async () => {
    const res = await h.app.inject({
      ...req,
      url: '/api/platform/integrations?limit=101',
      headers: h.session,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'limit' });
    expect(h.calls).toEqual([]);
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });
});

describe('POST /api/platform/fulfillment/retry', () =>
  sessionRoute(
    { method: 'POST', url: '/api/platform/fulfillment/retry', payload: { shop: SHOP, orderId: 'o_1' } },
    'retryFulfillment',
    () => ({ shop: SHOP, order_id: 'o_1', status: 'fulfilled', attempts: 1, via: 'graphql' }),
    {
      success: true,
      fulfillment: { orderId: 'o_1', status: 'fulfilled', via: 'graphql', trackingUrl: null },
    },
    { payload: { shop: SHOP }, param: 'orderId' },
    new HallmarkError('validation_failed'),
  ));

describe('GET /api/platform/integration/credentials', () => {
  it('hands the install’s credentials over once, never cached', async () => {
    h.answer('platform', 'getCredentials', async () => ({
      enterprise_id: 'ent_1',
      api_key_id: 'key_1',
      api_key: 'hm_k',
      webhook_secret: 'ab',
      shop: SHOP,
      return_url: 'https://app.test',
    }));
    const res = await h.app.inject({ method: 'GET', url: '/api/platform/integration/credentials?token=t1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toMatchObject({
      success: true,
      credentials: { apiKey: 'hm_k', shop: SHOP },
      returnUrl: 'https://app.test',
    });
    expect(h.callsTo('platform', 'getCredentials')).toEqual([{ token: 't1' }]);
  });

  it('refuses a request without token with 400, before any call', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/platform/integration/credentials' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'token' });
    expect(h.calls).toEqual([]);
  });

  it('maps a used or unknown token (404) to the api envelope', async () => {
    await expectMapped(h, ['platform', 'getCredentials'], new HallmarkError('resource_not_found'), {
      method: 'GET',
      url: '/api/platform/integration/credentials?token=t2',
      headers: {},
    });
  });
});

describe('POST /api/platform/webhooks', () => {
  const headers = {
    'content-type': 'application/json',
    'x-platform-hmac-sha256': 'c2ln',
    'x-platform-shop-domain': SHOP,
    'x-platform-topic': 'orders/paid',
  };
  const req = { method: 'POST' as const, url: '/api/platform/webhooks', payload: '{"id":1}' };

  it('passes the raw signed bytes and headers on and answers whether it was a duplicate', async () => {
    h.answer('platform', 'receiveWebhook', async () => ({ duplicate: false }));
    const res = await h.app.inject({ ...req, headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, duplicate: false });
    const sent = h.callsTo('platform', 'receiveWebhook')[0];
    expect(Buffer.from(sent.body).toString()).toBe('{"id":1}');
    expect(sent).toMatchObject({ hmac: 'c2ln', shop_domain: SHOP, topic: 'orders/paid' });
  });

  it('passes an unsigned delivery on with an empty signature, so the service refuses it with 401', async () => {
    const { 'x-platform-hmac-sha256': _, ...unsigned } = headers;
    h.answer('platform', 'receiveWebhook', async () => {
      throw new HallmarkError('invalid_token');
    });
    const res = await h.app.inject({ ...req, headers: unsigned });
    expect(res.statusCode).toBe(401);
    expect(h.callsTo('platform', 'receiveWebhook')[0]).toMatchObject({ hmac: '' });
  });

  it('counts the platform’s deliveries in their own per-address window, not the 300-a-minute public one', async () => {
    h.answer('platform', 'receiveWebhook', async () => ({ duplicate: false }));
    const publicRead = () =>
      h.app.inject({ method: 'GET', url: '/api/certificates/vouchers/HM-0000-0000-0' });
    const before = Number((await publicRead()).headers['x-ratelimit-remaining']);
    // A flash sale: more than the public window's 300 a minute from one of the platform's addresses.
    const answers = [];
    for (let i = 0; i < 320; i++) answers.push(await h.app.inject({ ...req, headers }));
    expect(new Set(answers.map((r) => r.statusCode))).toEqual(new Set([200]));
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('6000');
    // The public routes' window of that address is untouched by them.
    const pub = await publicRead();
    expect(pub.headers['x-ratelimit-limit']).toBe('300');
    expect(Number(pub.headers['x-ratelimit-remaining'])).toBe(before - 1);
  });

  it('maps a wrong signature (401) to the api envelope', async () => {
    await expectMapped(h, ['platform', 'receiveWebhook'], new HallmarkError('invalid_token'), {
      ...req,
      headers,
    });
  });
});
