// A platform Admin API outage does not stop paid orders (spec: the Admin API comes after
// the job): the product lookup falls back to REST, and with both GraphQL and REST failing the
// order still becomes its job from its own line items and the mapping's image, then is
// fulfilled; an order that cannot become a job (no image anywhere) is shown on the
// integration and sent as the enterprise webhook platform.order.failed, never silently.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startPlatformSim, type PlatformSim } from '@hallmark/platform-sim';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceQuery } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { signedCallback, startHttpsHost, until, webhookSignature, type HttpsHost } from '../src/platform.js';

const APP_KEY = 'hallmark-e2e-outage';
const APP_SECRET = 'e2e-outage-secret-0123456789';
const SHOP = 'e2e-outage.myshopify.com';

let stack: TestStack;
let sim: PlatformSim;
let host: HttpsHost;
let session: string;
let secret: string;
let productId: number;

beforeAll(async () => {
  host = await startHttpsHost(mkdtempSync(path.join(tmpdir(), 'hallmark-outage-')));
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
      HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: '2000',
    },
  });
  sim.sim.addShop(SHOP);
  productId = sim.sim.addProduct(SHOP, { title: 'Silk scarf', imageUrl: `${host.url}/scarf.png` }).id;
  session = await stack.token({ ent: `ent_${'o'.repeat(24)}` });
  const installed = await fetch(await signedCallback(stack, session, SHOP), { redirect: 'manual' });
  expect(installed.status).toBe(302);
  const hook = await stack.call('POST', '/api/enterprise/webhooks', {
    auth: session,
    body: { url: `${host.url}/hooks`, events: ['platform.order.failed'], enabled: true },
  });
  expect(hook.status).toBe(201);
  secret = hook.body.webhook.secret;
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await sim?.close();
  await host?.close();
});

async function payOrder(product: number) {
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

const fulfilled = (gid: string) =>
  until('fulfilment', async () =>
    sim.sim.view(SHOP).fulfillments.find((x) => `gid://shopify/Order/${x.orderId}` === gid),
  );

it('makes the paid order’s job through the REST product lookup while GraphQL fails', async () => {
  sim.sim.faults.set('graphql', 'errors', { match: 'HallmarkProducts' });
  try {
    const gid = await payOrder(productId);
    // The product's image reached the job: only the product lookup (here REST) knows it.
    expect(await jobItems(gid)).toEqual([expect.stringContaining(`${host.url}/scarf.png`)]);
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
            templateId: 'tmpl_scarf',
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
    const gid = await payOrder(productId);
    expect(await jobItems(gid)).toEqual([expect.stringContaining(`${host.url}/default.png`)]);
    expect((await fulfilled(gid)).trackingNumber).toMatch(/^0x[0-9a-f]{64}$/);
  } finally {
    sim.sim.faults.clear();
  }
}, 180_000);

it('shows an order with no image anywhere on the integration and sends platform.order.failed, making no job', async () => {
  const bare = sim.sim.addProduct(SHOP, { title: 'Plain belt', imageUrl: null }).id;
  const gid = await payOrder(bare);
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
  expect(hook.headers['x-webhook-signature']).toBe(webhookSignature(hook.body, secret));
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
