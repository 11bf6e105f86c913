// Security group, low findings 8, 9 and 11 of the review (docs/security.md), proven through
// the real gateway (finding 6 is in high-findings.test.ts, beside the voucher claim).
//
// 8. Image and logo fetches are no port scanner: every failure once a connection is
//    attempted answers the same error.
// 9. An issuer's display name holds no bidi control or invisible character.
// 11. Inbound platform webhooks: the signature covers the body only, so the body must be
//     bound to the shop header, a webhook id acts once, and a stale delivery is refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signWebhook, startPlatformSim, type PlatformSim } from '@hallmark/platform-sim';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceQuery } from '../../src/bulk.js';
import { startTestStack, type TestStack } from '../../src/index.js';
import { signedCallback, startHttpsHost, type HttpsHost } from '../../src/platform.js';

const APP_KEY = 'hallmark-e2e-low-findings';
const APP_SECRET = 'e2e-low-findings-secret-0123456789';
const SHOP_A = 'low-findings-a.myshopify.com';
const SHOP_B = 'low-findings-b.myshopify.com';

let stack: TestStack;
let sim: PlatformSim;
let host: HttpsHost;
const servers: Server[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  host = await startHttpsHost(mkdtempSync(path.join(tmpdir(), 'hallmark-low-')));
  sim = await startPlatformSim({ apiKey: APP_KEY, apiSecret: APP_SECRET });
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: {
      NODE_EXTRA_CA_CERTS: host.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      HALLMARK_MEDIA_FETCH_TIMEOUT_MS: '2000',
      HALLMARK_PLATFORM_ADMIN_URL: sim.adminUrlTemplate,
      HALLMARK_PLATFORM_API_KEY: APP_KEY,
      HALLMARK_PLATFORM_API_SECRET: APP_SECRET,
      HALLMARK_PLATFORM_APP_URL: 'https://app.example.test/platform/installed',
      HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: '2000',
    },
  });
}, 240_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
  await stack?.close();
  await sim?.close();
  await host?.close();
}, 60_000);

/** A local server on 127.0.0.1 (an allowed host here); its port. */
async function listen(server: Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An error body without its request id (the only part allowed to differ). */
function withoutRequestId(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withoutRequestId);
  if (!body || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body)
      .filter(([k]) => !/^request_?id$/i.test(k))
      .map(([k, v]) => [k, withoutRequestId(v)]),
  );
}

describe('finding 8: image and logo fetches tell no port state', () => {
  it('a logo on a closed port, a port that resets, plain HTTP (a TLS mismatch), a hang or an unresolvable host answers the identical 400 logoUrl body; nothing saved', async () => {
    const closed = await listen(createTcpServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const resets = await listen(createTcpServer((socket) => socket.resetAndDestroy()));
    const plainHttp = await listen(createHttpServer((_req, res) => res.end('not tls')) as unknown as Server);
    const hangs = await listen(createTcpServer(() => undefined));
    const owner = await stack.token({ role: 'owner' });
    const put = (logoUrl: string) =>
      stack.call('PUT', '/api/v1/enterprise/profile', {
        auth: owner,
        body: { displayName: 'Maison Probe', website: host.url, logoUrl },
      });
    const answers: Record<string, { status: number; body: unknown }> = {};
    for (const [name, url] of Object.entries({
      closed: `https://127.0.0.1:${closed}/logo.png`,
      reset: `https://127.0.0.1:${resets}/logo.png`,
      tlsMismatch: `https://127.0.0.1:${plainHttp}/logo.png`,
      hang: `https://127.0.0.1:${hangs}/logo.png`,
      noDns: 'https://no-such-host.invalid/logo.png',
    })) {
      const res = await put(url);
      answers[name] = { status: res.status, body: withoutRequestId(res.body) };
    }
    const first = Object.values(answers)[0]!;
    expect(first.status).toBe(400);
    expect(JSON.stringify(first.body)).toContain('parameter_invalid');
    expect(JSON.stringify(first.body)).toContain('logoUrl');
    for (const [name, answer] of Object.entries(answers)) expect([name, answer]).toEqual([name, first]);
    expect((await stack.call('GET', '/api/v1/enterprise/profile', { auth: owner })).status).toBe(404);
  }, 120_000);
});

describe('finding 9: issuer names hold no bidi control or invisible character', () => {
  it('PUT /api/v1/enterprise/profile refuses U+202E, U+2066, U+200E, U+200B, U+2060 and U+FEFF in displayName (400 naming it); a plain name is saved', async () => {
    const owner = await stack.token({ role: 'owner' });
    for (const ch of ['\u202E', '\u2066', '\u200E', '\u200B', '\u2060', '\uFEFF']) {
      const res = await stack.call('PUT', '/api/v1/enterprise/profile', {
        auth: owner,
        body: { displayName: `Maison${ch}Lumière`, website: host.url },
      });
      const text = JSON.stringify(res.body);
      expect([ch.charCodeAt(0).toString(16), res.status]).toEqual([ch.charCodeAt(0).toString(16), 400]);
      expect(text).toContain('parameter_invalid');
      expect(text).toContain('displayName');
    }
    expect((await stack.call('GET', '/api/v1/enterprise/profile', { auth: owner })).status).toBe(404);
    const ok = await stack.call('PUT', '/api/v1/enterprise/profile', {
      auth: owner,
      body: { displayName: 'Maison Lumière', website: host.url },
    });
    expect(ok.status).toBe(200);
  }, 60_000);
});

describe('finding 11: an inbound platform webhook is bound to its shop, acts once and is fresh', () => {
  const platformDb = <T extends Record<string, any>>(sql: string, params: unknown[] = []) =>
    serviceQuery<T>(stack, 'platform', sql, params);
  const integration = (shop: string) =>
    platformDb<{ status: string; has_token: boolean }>(
      'SELECT status, access_token_enc IS NOT NULL AS has_token FROM integrations WHERE shop = $1',
      [shop],
    ).then((r) => r[0]);
  const ordersOf = (shop: string) =>
    platformDb<{ order_id: string }>('SELECT order_id FROM orders WHERE shop = $1 ORDER BY order_id', [
      shop,
    ]).then((r) => r.map((o) => o.order_id));

  /** A webhook signed with the app secret (as a leaked, genuine body would be). */
  const deliver = (
    shop: string,
    topic: string,
    payload: unknown,
    over: { webhookId?: string; triggeredAt?: string } = {},
  ) => {
    const raw = JSON.stringify(payload);
    return stack.call('POST', '/api/platform/webhooks', {
      raw,
      headers: {
        'content-type': 'application/json',
        'x-platform-hmac-sha256': signWebhook(raw, APP_SECRET),
        'x-platform-shop-domain': shop,
        'x-platform-topic': topic,
        'x-platform-api-version': '2024-10',
        'x-platform-webhook-id': over.webhookId ?? randomUUID(),
        'x-platform-triggered-at': over.triggeredAt ?? new Date().toISOString(),
      },
    });
  };
  const order = (shop: string, id: number, named = true) => ({
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id}`,
    financial_status: 'pending',
    ...(named ? { order_status_url: `https://${shop}/orders/${id}/status` } : {}),
    line_items: [],
  });

  beforeAll(async () => {
    for (const shop of [SHOP_A, SHOP_B]) {
      sim.sim.addShop(shop);
      const session = await stack.token({ role: 'owner' });
      const res = await fetch(await signedCallback(stack, session, shop), { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(await integration(shop)).toEqual({ status: 'active', has_token: true });
    }
  }, 120_000);

  it("a signed app/uninstalled body of shop A replayed under shop B's header is refused (401); shop B's integration is untouched", async () => {
    const bodyOfA = { id: 1, name: 'low-findings-a', domain: SHOP_A, myshopify_domain: SHOP_A };
    const replay = await deliver(SHOP_B, 'app/uninstalled', bodyOfA);
    expect(replay.status).toBe(401);
    const anonymous = await deliver(SHOP_B, 'app/uninstalled', { id: 1 });
    expect(anonymous.status).toBe(401);
    expect(await integration(SHOP_B)).toEqual({ status: 'active', has_token: true });
    expect(await platformDb('SELECT 1 FROM inbound_webhooks WHERE shop = $1', [SHOP_B])).toHaveLength(0);
  });

  it("an order body of shop A under shop B's header is refused, by the shop it names or, naming none, by the order being A's", async () => {
    const id = 900_000_001;
    expect((await deliver(SHOP_A, 'orders/create', order(SHOP_A, id))).status).toBe(200);
    expect((await deliver(SHOP_B, 'orders/create', order(SHOP_A, id))).status).toBe(401);
    expect((await deliver(SHOP_B, 'orders/cancelled', order(SHOP_A, id))).status).toBe(401);
    expect((await deliver(SHOP_B, 'orders/create', order(SHOP_A, id, false))).status).toBe(401);
    expect(await ordersOf(SHOP_A)).toEqual([`gid://shopify/Order/${id}`]);
    expect(await ordersOf(SHOP_B)).toEqual([]);
  });

  it('the same webhook id twice: the second delivery, even with another body, does nothing', async () => {
    const webhookId = randomUUID();
    const first = await deliver(SHOP_B, 'orders/create', order(SHOP_B, 900_000_101), { webhookId });
    expect([first.status, first.body]).toEqual([200, { success: true, duplicate: false }]);
    const again = await deliver(SHOP_B, 'orders/create', order(SHOP_B, 900_000_102), { webhookId });
    expect([again.status, again.body]).toEqual([200, { success: true, duplicate: true }]);
    expect(await ordersOf(SHOP_B)).toEqual(['gid://shopify/Order/900000101']);
  });

  it('a delivery triggered more than 6 h ago, ahead of the clock, or without a time is refused (401) and does nothing', async () => {
    const hours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    for (const triggeredAt of [hours(-7), hours(1), '', 'not a time']) {
      const res = await deliver(SHOP_B, 'orders/create', order(SHOP_B, 900_000_201), { triggeredAt });
      expect([triggeredAt, res.status]).toEqual([triggeredAt, 401]);
    }
    expect(await ordersOf(SHOP_B)).toEqual(['gid://shopify/Order/900000101']);
    const fresh = await deliver(SHOP_B, 'orders/create', order(SHOP_B, 900_000_201), {
      triggeredAt: hours(-5),
    });
    expect(fresh.status).toBe(200);
  });

  it("shop A's own app/uninstalled body sent again while A is installed (its token still works) is acknowledged and does nothing", async () => {
    const bodyOfA = { id: 1, name: 'low-findings-a', domain: SHOP_A, myshopify_domain: SHOP_A };
    const replay = await deliver(SHOP_A, 'app/uninstalled', bodyOfA);
    expect([replay.status, replay.body]).toEqual([200, { success: true, duplicate: false }]);
    expect(await integration(SHOP_A)).toEqual({ status: 'active', has_token: true });
  });

  it("the platform's own app/uninstalled still disables the shop it names, and only that one", async () => {
    const sent = await sim.sim.uninstall(SHOP_A);
    expect(sent.map((s) => s.status)).toEqual([200]);
    expect(await integration(SHOP_A)).toEqual({ status: 'uninstalled', has_token: false });
    expect(await integration(SHOP_B)).toEqual({ status: 'active', has_token: true });
  });
});
