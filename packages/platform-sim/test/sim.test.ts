// The simulator behaves like the platform for every call Hallmark makes: a signed install
// redirect and single-use code exchange, token-guarded Admin GraphQL and REST, signed
// webhooks with the platform's headers, one fulfillment per order, and failures on demand.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { oauthMessage, startPlatformSim, type PlatformSim } from '../src/index.js';

const SECRET = 'app-secret-for-tests';
const SHOP = 'demo-shop.myshopify.com';
let sim: PlatformSim;
let receiver: http.Server;
let receiverUrl: string;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  sim = await startPlatformSim({ apiKey: 'app-key', apiSecret: SECRET });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
});

afterAll(async () => {
  await sim.close();
  await new Promise((r) => receiver.close(r));
});

const admin = (path: string) => `${sim.url}/${SHOP}/admin${path}`;

async function install(): Promise<string> {
  const q = new URLSearchParams({
    client_id: 'app-key',
    scope: 'read_orders',
    redirect_uri: 'https://app.test/cb',
    state: 'st-1',
  });
  const page = await (await fetch(admin(`/oauth/authorize?${q}`))).text();
  const href = /id="approve" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
  const res = await fetch(href, { redirect: 'manual' });
  const back = new URL(res.headers.get('location')!);
  const code = back.searchParams.get('code')!;
  const tok = await fetch(admin('/oauth/access_token'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'app-key', client_secret: SECRET, code }),
  });
  return ((await tok.json()) as { access_token: string }).access_token;
}

const gql = (token: string, query: string, variables: unknown = {}) =>
  fetch(admin('/api/2024-10/graphql.json'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-platform-access-token': token },
    body: JSON.stringify({ query, variables }),
  });

describe('install', () => {
  it('redirects back with a query whose hmac is the app-secret HMAC of the sorted other parameters', async () => {
    const q = new URLSearchParams({
      client_id: 'app-key',
      scope: 'read_orders',
      redirect_uri: 'https://app.test/cb',
      state: 'st-9',
    });
    const page = await (await fetch(admin(`/oauth/authorize?${q}`))).text();
    expect(page).toContain('read_orders');
    const href = /id="approve" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const back = new URL((await fetch(href, { redirect: 'manual' })).headers.get('location')!);
    const params = Object.fromEntries(back.searchParams);
    expect(params).toMatchObject({ shop: SHOP, state: 'st-9' });
    expect(Math.abs(Number(params.timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(params.hmac).toBe(createHmac('sha256', SECRET).update(oauthMessage(params)).digest('hex'));
  });

  it('refuses an unknown client id on the authorize page', async () => {
    const res = await fetch(admin('/oauth/authorize?client_id=other&redirect_uri=https://x.test/'));
    expect(res.status).toBe(400);
  });

  it('exchanges a code once; a second exchange and a wrong secret are refused', async () => {
    const q = new URLSearchParams({
      client_id: 'app-key',
      scope: 's',
      redirect_uri: 'https://app.test/cb',
      state: 'x',
    });
    const href = `${admin('/oauth/approve')}?${q}`;
    const code = new URL(
      (await fetch(href, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('code');
    const ex = (secret: string) =>
      fetch(admin('/oauth/access_token'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'app-key', client_secret: secret, code }),
      });
    expect((await ex('wrong')).status).toBe(400);
    expect((await ex(SECRET)).status).toBe(200);
    expect((await ex(SECRET)).status).toBe(400);
  });

  it('answers 401 to Admin API calls without a valid access token', async () => {
    expect((await gql('shpat_nope', '{ webhookSubscriptions(first: 10) { nodes { id } } }')).status).toBe(
      401,
    );
  });
});

describe('webhooks and fulfilment', () => {
  let token: string;
  let productId: number;
  beforeAll(async () => {
    token = await install();
    for (const topic of ['ORDERS_CREATE', 'ORDERS_PAID']) {
      const res = await gql(
        token,
        'mutation($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) { webhookSubscription { id } userErrors { field message } } }',
        {
          topic,
          webhookSubscription: { callbackUrl: receiverUrl, format: 'JSON' },
        },
      );
      const body = (await res.json()) as any;
      expect(body.data.webhookSubscriptionCreate.userErrors).toEqual([]);
    }
    productId = sim.sim.addProduct(SHOP, { title: 'Handbag', imageUrl: 'https://cdn.test/bag.png' }).id;
  });

  it('lists subscriptions and refuses a duplicate address for a topic', async () => {
    const list = (await (
      await gql(token, '{ webhookSubscriptions(first: 50) { edges { node { id topic } } } }')
    ).json()) as any;
    expect(list.data.webhookSubscriptions.edges.map((e: any) => e.node.topic).sort()).toEqual([
      'ORDERS_CREATE',
      'ORDERS_PAID',
    ]);
    const dup = (await (
      await gql(
        token,
        'mutation { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $w) { userErrors { message } } }',
        {
          topic: 'ORDERS_PAID',
          webhookSubscription: { callbackUrl: receiverUrl },
        },
      )
    ).json()) as any;
    expect(dup.data.webhookSubscriptionCreate.userErrors[0].message).toMatch(/already been taken/);
  });

  it('sends orders/create and orders/paid signed with the app secret and the platform headers', async () => {
    received.length = 0;
    const { order } = await sim.sim.createOrder(SHOP, { lineItems: [{ productId, quantity: 3 }] });
    await sim.sim.pay(SHOP, order.id);
    expect(received.map((r) => r.headers['x-platform-topic'])).toEqual(['orders/create', 'orders/paid']);
    for (const r of received) {
      expect(r.headers['x-platform-hmac-sha256']).toBe(
        createHmac('sha256', SECRET).update(r.body).digest('base64'),
      );
      expect(r.headers['x-platform-shop-domain']).toBe(SHOP);
      expect(r.headers['x-platform-api-version']).toBe('2024-10');
      expect(r.headers['x-platform-webhook-id']).toBeTruthy();
    }
    const paid = JSON.parse(received[1]!.body);
    expect(paid).toMatchObject({
      id: order.id,
      admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
      financial_status: 'paid',
    });
    expect(paid.line_items[0]).toMatchObject({ quantity: 3, title: 'Handbag', product_id: productId });
    // A redelivery repeats the webhook id.
    const again = await sim.sim.redeliver(SHOP, received[1]!.headers['x-platform-webhook-id'] as string);
    expect(again[0]!.webhookId).toBe(received[1]!.headers['x-platform-webhook-id']);
  });

  it('fulfils an order once through GraphQL; a second fulfilment of the closed order is refused', async () => {
    const { order } = await sim.sim.createOrder(SHOP, { lineItems: [{ productId, quantity: 1 }] });
    const fos = (await (
      await gql(
        token,
        'query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 10) { nodes { id status } } } }',
        { id: `gid://shopify/Order/${order.id}` },
      )
    ).json()) as any;
    const foId = fos.data.order.fulfillmentOrders.nodes[0].id;
    const create = () =>
      gql(
        token,
        'mutation($fulfillment: FulfillmentInput!) { fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id } userErrors { message } } }',
        {
          fulfillment: {
            lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId }],
            trackingInfo: { number: '0xabc', url: 'https://x/tx/0xabc', company: 'Hallmark' },
            notifyCustomer: true,
          },
        },
      ).then((r) => r.json() as Promise<any>);
    expect((await create()).data.fulfillmentCreate.userErrors).toEqual([]);
    expect((await create()).data.fulfillmentCreate.userErrors[0].message).toMatch(/not in an open state/);
    const f = sim.sim.view(SHOP).fulfillments.filter((x) => x.orderId === order.id);
    expect(f).toEqual([
      expect.objectContaining({
        trackingNumber: '0xabc',
        trackingCompany: 'Hallmark',
        notifyCustomer: true,
        via: 'graphql',
      }),
    ]);
  });

  it('fulfils through the REST fallback', async () => {
    const { order } = await sim.sim.createOrder(SHOP, { lineItems: [{ productId, quantity: 1 }] });
    const headers = { 'content-type': 'application/json', 'x-platform-access-token': token };
    const fos = (await (
      await fetch(admin(`/api/2024-10/orders/${order.id}/fulfillment_orders.json`), { headers })
    ).json()) as any;
    const res = await fetch(admin('/api/2024-10/fulfillments.json'), {
      method: 'POST',
      headers,
      body: JSON.stringify({
        fulfillment: {
          line_items_by_fulfillment_order: [{ fulfillment_order_id: fos.fulfillment_orders[0].id }],
          tracking_info: { number: '0xdef' },
          notify_customer: true,
        },
      }),
    });
    expect(res.status).toBe(201);
    expect(sim.sim.view(SHOP).fulfillments.find((x) => x.orderId === order.id)?.via).toBe('rest');
  });

  it('answers products by ids over REST in the platform shape (numeric ids, image.src, fields trims)', async () => {
    const bare = sim.sim.addProduct(SHOP, { title: 'Scarf', imageUrl: null }).id;
    const headers = { 'x-platform-access-token': token };
    const res = await fetch(
      admin(
        `/api/2024-10/products.json?ids=${productId},${bare},999&fields=id,title,vendor,product_type,image`,
      ),
      { headers },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.products).toEqual([
      expect.objectContaining({
        id: productId,
        title: 'Handbag',
        image: expect.objectContaining({ src: 'https://cdn.test/bag.png' }),
      }),
      expect.objectContaining({ id: bare, title: 'Scarf', image: null }),
    ]);
    expect(Object.keys(body.products[0]).sort()).toEqual(['id', 'image', 'product_type', 'title', 'vendor']);
    const one = await fetch(admin(`/api/2024-10/products/${productId}.json`), { headers });
    expect(((await one.json()) as any).product.admin_graphql_api_id).toBe(
      `gid://shopify/Product/${productId}`,
    );
    expect((await fetch(admin('/api/2024-10/products/1.json'), { headers })).status).toBe(404);
  });

  it('fails on demand: GraphQL errors, a 5xx, a timeout, then recovers', async () => {
    const q = '{ webhookSubscriptions(first: 1) { nodes { id } } }';
    sim.sim.faults.set('graphql', 'errors', { times: 1 });
    expect(((await (await gql(token, q)).json()) as any).errors[0].message).toMatch(/Internal error/);
    sim.sim.faults.set('graphql', '5xx', { times: 1 });
    expect((await gql(token, q)).status).toBe(503);
    sim.sim.faults.set('graphql', 'timeout', { times: 1, holdMs: 50 });
    await expect(gql(token, q)).rejects.toThrow();
    expect((await gql(token, q)).status).toBe(200);
  });

  it('on uninstall revokes the token and sends app/uninstalled', async () => {
    await gql(
      token,
      'mutation { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $w) { userErrors { message } } }',
      {
        topic: 'APP_UNINSTALLED',
        webhookSubscription: { callbackUrl: receiverUrl },
      },
    );
    received.length = 0;
    await sim.sim.uninstall(SHOP);
    expect(received.map((r) => r.headers['x-platform-topic'])).toEqual(['app/uninstalled']);
    expect((await gql(token, '{ webhookSubscriptions(first: 1) { nodes { id } } }')).status).toBe(401);
  });
});
