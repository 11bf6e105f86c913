// The e-commerce platform integration end to end on the dev stack, with the platform
// simulator in place of the platform: install by OAuth, a paid order becomes one bulk job
// and its certificate vouchers, the enterprise webhook carries the voucher map, and the
// order is fulfilled with the chain transaction (GraphQL, else REST; failures recorded and
// retried by hand), exactly once under redelivered webhooks. An Admin API outage does not stop
// paid orders: products are read through REST when GraphQL fails, and with both failing the job
// is made from the line items and the mapping's image; an order that cannot become a job is
// shown on the integration and sent as platform.order.failed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signOAuthQuery, signWebhook, startPlatformSim, type PlatformSim } from '@hallmark/platform-sim';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceQuery } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { signedCallback, startHttpsHost, until, webhookSignature, type HttpsHost } from '../src/platform.js';

const APP_KEY = 'hallmark-e2e-app';
const APP_SECRET = 'e2e-app-secret-0123456789';
const APP_URL = 'https://app.example.test/platform/installed';
const SHOP = 'e2e-boutique.myshopify.com';

let stack: TestStack;
let sim: PlatformSim;
let host: HttpsHost;
let session: string;
let enterpriseId: string;
let creds: { apiKeyId: string; apiKey: string; webhookSecret: string; enterpriseId: string; shop: string };
let productId: number;

beforeAll(async () => {
  host = await startHttpsHost(mkdtempSync(path.join(tmpdir(), 'hallmark-platform-')));
  sim = await startPlatformSim({ apiKey: APP_KEY, apiSecret: APP_SECRET });
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: {
      NODE_EXTRA_CA_CERTS: host.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      HALLMARK_PLATFORM_ADMIN_URL: sim.adminUrlTemplate,
      HALLMARK_PLATFORM_API_KEY: APP_KEY,
      HALLMARK_PLATFORM_API_SECRET: APP_SECRET,
      HALLMARK_PLATFORM_APP_URL: APP_URL,
      HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: '2000',
      HALLMARK_PLATFORM_PRODUCT_WAIT_MS: '500',
      HALLMARK_CHAIN_EXPLORER_TX_URL: 'https://explorer.example.test/tx/{hash}',
    },
  });
  sim.sim.addShop(SHOP);
  productId = sim.sim.addProduct(SHOP, {
    title: 'Leather handbag',
    imageUrl: `${host.url}/handbag.png`,
    sku: 'BAG-1',
  }).id;
  enterpriseId = `ent_${'p'.repeat(24)}`;
  session = await stack.token({ ent: enterpriseId });
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await sim?.close();
  await host?.close();
});

const platformDb = <T extends Record<string, any>>(sql: string, params: unknown[] = []) =>
  serviceQuery<T>(stack, 'platform', sql, params);

async function payOrder(quantity: number) {
  const { order } = await sim.sim.createOrder(SHOP, { lineItems: [{ productId, quantity }] });
  const sent = await sim.sim.pay(SHOP, order.id);
  expect(sent.map((s) => s.status)).toEqual([200]);
  return { order, gid: `gid://shopify/Order/${order.id}`, webhookId: sent[0]!.webhookId };
}

/** One unit of `product` paid; its order gid. */
async function payFor(product: number) {
  const { order } = await sim.sim.createOrder(SHOP, { lineItems: [{ productId: product, quantity: 1 }] });
  expect((await sim.sim.pay(SHOP, order.id)).map((s) => s.status)).toEqual([200]);
  return `gid://shopify/Order/${order.id}`;
}

/** The items of the order's job as bulk stored them (JSON text), once the job completed. */
const jobItems = (gid: string) =>
  until('order job completed', async () => {
    const rows = await serviceQuery<{ status: string; input: string }>(
      stack,
      'bulk',
      `SELECT j.status, i.input::text AS input FROM jobs j JOIN job_items i ON i.job_id = j.id
        WHERE j.external_context->>'orderId' = $1`,
      [gid],
    );
    return rows.length > 0 && rows.every((r) => r.status === 'completed') ? rows.map((r) => r.input) : null;
  });

const fulfilmentOf = (gid: string) =>
  platformDb<{ status: string; attempts: number; via: string; error: string }>(
    'SELECT status, attempts, via, error FROM fulfilments WHERE shop = $1 AND order_id = $2',
    [SHOP, gid],
  ).then((rows) => rows[0]);

describe('install', () => {
  it('installs through authorize, the platform’s approval and the signed callback, then hands over credentials once', async () => {
    const callback = await signedCallback(stack, session, SHOP);
    expect(callback.startsWith(`${stack.gatewayUrl}/api/platform/auth/callback?`)).toBe(true);
    const res = await fetch(callback, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(APP_URL);
    const token = back.searchParams.get('token')!;

    const got = await stack.call('GET', `/api/platform/integration/credentials?token=${token}`);
    expect(got.status).toBe(200);
    creds = got.body.credentials;
    expect(creds).toMatchObject({ enterpriseId, shop: SHOP, apiKeyId: expect.stringMatching(/^apikey_/) });
    expect(creds.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(got.body.returnUrl).toContain(SHOP);
    expect((await stack.call('GET', `/api/platform/integration/credentials?token=${token}`)).status).toBe(
      404,
    );

    // The provisioned key works on bulk mint; the four topics point at Hallmark.
    const jobs = await stack.call('GET', '/api/bulk-mint', { headers: { 'x-api-key': creds.apiKey } });
    expect(jobs.status).toBe(200);
    const view = sim.sim.view(SHOP);
    expect(view.scopes).toBe('read_orders,write_fulfillments,read_products');
    expect(view.webhooks.map((w) => w.topic).sort()).toEqual([
      'app/uninstalled',
      'orders/cancelled',
      'orders/create',
      'orders/paid',
    ]);
    for (const w of view.webhooks) expect(w.callbackUrl).toBe(`${stack.gatewayUrl}/api/platform/webhooks`);
    // The token is stored encrypted.
    const [row] = await platformDb<{ access_token_enc: string }>(
      'SELECT access_token_enc FROM integrations WHERE shop = $1',
      [SHOP],
    );
    expect(row!.access_token_enc).not.toMatch(/shpat_/);
  }, 60_000);

  it('refuses a tampered, replayed or stale callback with a page, never a redirect into the app, storing nothing', async () => {
    const other = 'e2e-other.myshopify.com';
    sim.sim.addShop(other);
    const callback = new URL(await signedCallback(stack, session, other));
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'f'.repeat(64));
    const stale = new URL(callback);
    const q = Object.fromEntries(stale.searchParams);
    q.timestamp = String(Math.floor(Date.now() / 1000) - 3600);
    q.hmac = signOAuthQuery(q, APP_SECRET);
    stale.search = new URLSearchParams(q).toString();
    for (const url of [tampered, stale]) {
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(401);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
    }
    expect(await platformDb('SELECT 1 FROM integrations WHERE shop = $1', [other])).toHaveLength(0);
    // The genuine callback still works once; its replay is refused.
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(302);
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(401);
  }, 60_000);

  it('lets no other enterprise touch the shop (404) and needs a session (401)', async () => {
    const intruder = await stack.token();
    const calls: [string, string, unknown][] = [
      ['POST', '/api/platform/auth/authorize', { shop: SHOP }],
      ['PATCH', '/api/platform/integration/settings', { shop: SHOP, settings: { autoFulfill: false } }],
      ['POST', '/api/platform/webhooks/register', { shop: SHOP }],
      ['POST', '/api/platform/fulfillment/retry', { shop: SHOP, orderId: '1' }],
      ['GET', `/api/platform/integration?shop=${SHOP}`, undefined],
    ];
    for (const [method, url, body] of calls) {
      expect((await stack.call(method, url, { auth: intruder, body })).status).toBe(404);
      expect((await stack.call(method, url, { body })).status).toBe(401);
    }
    expect(
      (
        await stack.call('POST', '/api/platform/auth/authorize', {
          auth: session,
          body: { shop: 'evil.example.com' },
        })
      ).status,
    ).toBe(400);
  });
});

describe('paid orders', () => {
  beforeAll(async () => {
    const res = await stack.call('POST', '/api/enterprise/webhooks', {
      auth: session,
      body: {
        url: `${host.url}/hooks`,
        events: ['bulk.job.completed', 'platform.order.failed'],
        secret: creds.webhookSecret,
        enabled: true,
      },
    });
    expect(res.status).toBe(201);
  });

  it('turns a paid order of 3 into one job, 3 vouchers, the enterprise webhook and a fulfilment with the transaction', async () => {
    const { gid, webhookId } = await payOrder(3);
    const f = await until('fulfilment', async () =>
      sim.sim.view(SHOP).fulfillments.find((x) => `gid://shopify/Order/${x.orderId}` === gid),
    );
    expect(f.trackingNumber).toMatch(/^0x[0-9a-f]{64}$/);
    expect(f).toMatchObject({
      trackingUrl: `https://explorer.example.test/tx/${f.trackingNumber}`,
      trackingCompany: 'Hallmark',
      notifyCustomer: true,
      via: 'graphql',
    });

    const [order] = await platformDb<{
      job_id: string;
      job_status: string;
      voucher_ids: string[];
      transaction_hash: string;
    }>(
      'SELECT job_id, job_status, voucher_ids, transaction_hash FROM orders WHERE shop = $1 AND order_id = $2',
      [SHOP, gid],
    );
    expect(order).toMatchObject({ job_status: 'completed', transaction_hash: f.trackingNumber });
    expect(order!.voucher_ids).toHaveLength(3);
    const jobs = await serviceQuery(
      stack,
      'bulk',
      "SELECT id FROM jobs WHERE external_context->>'orderId' = $1",
      [gid],
    );
    expect(jobs).toHaveLength(1);

    const hook = await until('enterprise webhook', async () =>
      host.hooks.find((h) => JSON.parse(h.body).orderId === gid),
    );
    expect(hook.headers['x-webhook-signature']).toBe(webhookSignature(hook.body, creds.webhookSecret));
    const body = JSON.parse(hook.body);
    expect(body).toMatchObject({ event: 'bulk.job.completed', shop: SHOP, status: 'completed' });
    const [lineGid] = Object.keys(body.voucher_map);
    expect(lineGid).toMatch(/^gid:\/\/shopify\/LineItem\/\d+$/);
    expect(body.voucher_map[lineGid!].voucherIds.sort()).toEqual([...order!.voucher_ids].sort());

    // The same webhook again, and a second orders/paid for the order: acknowledged, no new work.
    const again = await sim.sim.redeliver(SHOP, webhookId);
    expect(again[0]!.status).toBe(200);
    const { order: simOrder } = {
      order: sim.sim.view(SHOP).orders.find((o) => `gid://shopify/Order/${o.id}` === gid)!,
    };
    await sim.sim.pay(SHOP, simOrder.id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      await serviceQuery(stack, 'bulk', "SELECT id FROM jobs WHERE external_context->>'orderId' = $1", [gid]),
    ).toHaveLength(1);
    expect(
      sim.sim.view(SHOP).fulfillments.filter((x) => `gid://shopify/Order/${x.orderId}` === gid),
    ).toHaveLength(1);
    const payments = await platformDb(
      "SELECT 1 FROM outbox WHERE type = 'payment.succeeded' AND payload->'data'->'object'->>'order_id' = $1",
      [gid],
    );
    expect(payments).toHaveLength(1);
  }, 180_000);

  it('falls back to REST when GraphQL fails', async () => {
    sim.sim.faults.set('graphql', 'errors', { match: 'fulfillment' });
    try {
      const { gid } = await payOrder(1);
      const f = await until('fulfilment', async () =>
        sim.sim.view(SHOP).fulfillments.find((x) => `gid://shopify/Order/${x.orderId}` === gid),
      );
      expect(f.via).toBe('rest');
      expect(f.trackingNumber).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      sim.sim.faults.clear();
    }
  }, 180_000);

  it('records a failure when both fail, keeps the job completed, and fulfils on retry', async () => {
    sim.sim.faults.set('graphql', '5xx', { match: 'fulfillment' });
    sim.sim.faults.set('rest', 'errors');
    let gid: string;
    try {
      ({ gid } = await payOrder(1));
      const failed = await until('recorded failure', async () => {
        const f = await fulfilmentOf(gid);
        return f?.status === 'failed' ? f : null;
      });
      expect(failed.attempts).toBe(3);
      expect(failed.error).toMatch(/GraphQL: .*503.*REST: .*500/);
    } finally {
      sim.sim.faults.clear();
    }
    const [order] = await platformDb<{ job_status: string }>(
      'SELECT job_status FROM orders WHERE order_id = $1',
      [gid],
    );
    expect(order!.job_status).toBe('completed');
    expect(
      sim.sim.view(SHOP).fulfillments.filter((x) => `gid://shopify/Order/${x.orderId}` === gid),
    ).toHaveLength(0);

    const retry = await stack.call('POST', '/api/platform/fulfillment/retry', {
      auth: session,
      body: { shop: SHOP, orderId: gid },
    });
    expect(retry.status).toBe(200);
    expect(retry.body.fulfillment).toMatchObject({ status: 'fulfilled', via: 'graphql' });
    expect(
      sim.sim.view(SHOP).fulfillments.filter((x) => `gid://shopify/Order/${x.orderId}` === gid),
    ).toHaveLength(1);
  }, 180_000);

  // An Admin API outage does not stop paid orders (spec: the Admin API comes after the job).
  it('makes the paid order’s job through the REST product lookup while GraphQL fails', async () => {
    sim.sim.faults.set('graphql', 'errors', { match: 'HallmarkProducts' });
    try {
      const gid = await payFor(productId);
      // The product's image reached the job: only the product lookup (here REST) knows it.
      expect(await jobItems(gid)).toEqual([expect.stringContaining(`${host.url}/handbag.png`)]);
    } finally {
      sim.sim.faults.clear();
    }
  }, 180_000);

  it('with GraphQL and REST both failing makes the job from the line items and the mapping’s image, then fulfils', async () => {
    const mapped = await stack.call('PATCH', '/api/platform/integration/settings', {
      auth: session,
      body: {
        shop: SHOP,
        settings: {
          productTemplateMapping: {
            [`gid://shopify/Product/${productId}`]: {
              templateId: 'tmpl_bag',
              imageUrl: `${host.url}/default.png`,
            },
          },
        },
      },
    });
    expect(mapped.status).toBe(200);
    sim.sim.faults.set('graphql', '5xx', { match: 'HallmarkProducts' });
    sim.sim.faults.set('rest', 'errors', { match: 'products' });
    try {
      const gid = await payFor(productId);
      expect(await jobItems(gid)).toEqual([expect.stringContaining(`${host.url}/default.png`)]);
      const f = await until('fulfilment', async () =>
        sim.sim.view(SHOP).fulfillments.find((x) => `gid://shopify/Order/${x.orderId}` === gid),
      );
      expect(f.trackingNumber).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      sim.sim.faults.clear();
    }
  }, 180_000);

  it('waits out an Admin API outage when the product is the only image, then makes the job with it', async () => {
    const watch = sim.sim.addProduct(SHOP, { title: 'Pocket watch', imageUrl: `${host.url}/watch.png` }).id;
    // Two whole lookups fail (3 attempts each, GraphQL then REST); the third, after the
    // workflow's waits (500 ms, 1 s), reads the product. Before, the first failed lookup
    // reported the order (no image anywhere else) and no job was ever made.
    sim.sim.faults.set('graphql', '5xx', { match: 'HallmarkProducts', times: 6 });
    sim.sim.faults.set('rest', 'errors', { match: 'products', times: 6 });
    try {
      const gid = await payFor(watch);
      expect(await jobItems(gid)).toEqual([expect.stringContaining(`${host.url}/watch.png`)]);
      expect(
        await platformDb('SELECT failure FROM orders WHERE shop = $1 AND order_id = $2', [SHOP, gid]),
      ).toEqual([{ failure: null }]);
    } finally {
      sim.sim.faults.clear();
    }
  }, 180_000);

  it('shows an order with no image anywhere on the integration and sends platform.order.failed, making no job', async () => {
    const bare = sim.sim.addProduct(SHOP, { title: 'Plain belt', imageUrl: null }).id;
    const gid = await payFor(bare);
    const integration = await until('integration lastError', async () => {
      const res = await stack.call('GET', `/api/platform/integration?shop=${SHOP}`, { auth: session });
      return res.body.integration?.lastError?.orderId === gid ? res.body.integration : null;
    });
    expect(integration.lastError).toMatchObject({
      code: 'parameter_missing',
      param: 'metadata[0].imageUrl',
      message: expect.stringContaining('Plain belt'),
    });
    const hook = await until('platform.order.failed webhook', async () =>
      host.hooks.find((h) => JSON.parse(h.body).orderId === gid),
    );
    expect(hook.headers['x-webhook-event']).toBe('platform.order.failed');
    expect(hook.headers['x-webhook-signature']).toBe(webhookSignature(hook.body, creds.webhookSecret));
    expect(JSON.parse(hook.body)).toMatchObject({
      event: 'platform.order.failed',
      shop: SHOP,
      orderId: gid,
      error: { code: 'parameter_missing', param: 'metadata[0].imageUrl' },
    });
    expect(
      await serviceQuery(stack, 'bulk', "SELECT 1 FROM jobs WHERE external_context->>'orderId' = $1", [gid]),
    ).toHaveLength(0);
  }, 180_000);

  it('answers 401 to a webhook with a wrong or missing signature and does nothing', async () => {
    const body = JSON.stringify({ id: 99, admin_graphql_api_id: 'gid://shopify/Order/99', line_items: [] });
    const headers = {
      'content-type': 'application/json',
      'x-platform-shop-domain': SHOP,
      'x-platform-topic': 'orders/paid',
    };
    const wrong = await stack.call('POST', '/api/platform/webhooks', {
      raw: body,
      headers: { ...headers, 'x-platform-hmac-sha256': signWebhook(body, 'not-the-secret') },
    });
    expect(wrong.status).toBe(401);
    const missing = await stack.call('POST', '/api/platform/webhooks', { raw: body, headers });
    expect([400, 401]).toContain(missing.status);
    expect(
      await platformDb('SELECT 1 FROM orders WHERE order_id = $1', ['gid://shopify/Order/99']),
    ).toHaveLength(0);
  });

  it('sets auto-fulfilment and the product template mapping; refuses a bad mapping', async () => {
    const gid = `gid://shopify/Product/${productId}`;
    const ok = await stack.call('PATCH', '/api/platform/integration/settings', {
      auth: session,
      body: {
        shop: SHOP,
        settings: {
          autoFulfill: true,
          productTemplateMapping: {
            [gid]: {
              templateId: 'tmpl_bag',
              enabled: true,
              metadataMapping: { 'lineItem.sku': 'serialNumber' },
            },
          },
        },
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.integration.settings).toMatchObject({
      autoFulfill: true,
      productTemplateMapping: { [gid]: { templateId: 'tmpl_bag', productId: gid } },
    });
    const bad = await stack.call('PATCH', '/api/platform/integration/settings', {
      auth: session,
      body: { shop: SHOP, settings: { productTemplateMapping: { 'not-a-gid': { templateId: 'x' } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'parameter_invalid' });
  });

  it('on orders/cancelled voids the order’s unclaimed vouchers: their page says voided and a claim is refused', async () => {
    const { order, gid } = await payOrder(2);
    const ids = await until('job finished', async () => {
      const [row] = await platformDb<{ job_status: string; voucher_ids: string[] }>(
        'SELECT job_status, voucher_ids FROM orders WHERE shop = $1 AND order_id = $2',
        [SHOP, gid],
      );
      return row?.voucher_ids.length === 2 ? row.voucher_ids : null;
    });
    const sent = await sim.sim.cancel(SHOP, order.id);
    expect(sent[0]!.status).toBe(200);
    for (const id of ids) {
      const page = await fetch(`${stack.gatewayUrl}/vouchers/${id}`);
      expect(await page.text()).toContain('data-status="voided"');
    }
    const buyer = await stack.token({ email: 'buyer@example.com' });
    const claim = await stack.call('POST', `/api/certificates/vouchers/${ids[0]}/claim`, {
      auth: buyer,
      body: {},
    });
    expect([claim.status, claim.text]).toEqual([422, expect.stringMatching(/voided/)]);
  }, 180_000);

  it('on app/uninstalled disables the integration, wipes the token and revokes the provisioned key', async () => {
    await sim.sim.uninstall(SHOP);
    const [row] = await platformDb<{ status: string; access_token_enc: string | null }>(
      'SELECT status, access_token_enc FROM integrations WHERE shop = $1',
      [SHOP],
    );
    expect(row).toEqual({ status: 'uninstalled', access_token_enc: null });
    await until(
      'key revoked',
      async () =>
        (await stack.call('GET', '/api/bulk-mint', { headers: { 'x-api-key': creds.apiKey } })).status ===
        401,
      20_000,
    );
  });
});
