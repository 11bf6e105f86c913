// Security group, findings 2 and 10 of the review (docs/security.md), proven through the real
// gateway processes of one stack. Each test failed on the code before its fix.
//
// 2. The client is the socket's peer unless that peer is a configured proxy
//    (HALLMARK_TRUSTED_PROXIES): the stack's own gateway trusts none, so a spoofed
//    X-Forwarded-For neither escapes a per-client limit nor satisfies a key's allowedIps; a
//    second gateway trusting 127.0.0.1/32 (as the chart's gateway trusts its Ingress) counts
//    each forwarded client on its own and matches allowedIps against it.
// 10. /api/certificate/health tells the public only ok or degraded; a key is shared only with
//    users of its enterprise: a malformed id is 400, anyone else 404, and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startExtraGateway, type ExtraGateway } from '../../src/gateway2.js';
import { startTestStack, type TestStack } from '../../src/index.js';
import { callWithKey, createKey } from '../../src/keys.js';

let stack: TestStack;
let behindProxy: ExtraGateway;
let owner: string;

beforeAll(async () => {
  stack = await startTestStack();
  // The test's requests come from 127.0.0.1: to this gateway they come through its proxy.
  behindProxy = await startExtraGateway(stack, {
    name: 'gateway-behind-proxy',
    env: { HALLMARK_TRUSTED_PROXIES: '127.0.0.1/32' },
  });
  owner = await stack.token();
}, 120_000);

afterAll(async () => {
  await behindProxy?.stop();
  await stack?.close();
}, 60_000);

/** The statuses of `n` views of the verification page (60 a minute per client). */
async function views(gatewayUrl: string, n: number, forwardedFor: (i: number) => string | undefined) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const xff = forwardedFor(i);
    const res = await fetch(`${gatewayUrl}/verify/not-a-certificate`, {
      headers: xff ? { 'x-forwarded-for': xff } : {},
    });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

describe('finding 2: the client is the socket peer unless that peer is a trusted proxy', () => {
  it('with no trusted proxies a spoofed X-Forwarded-For does not escape the per-client limit', async () => {
    // A fresh made-up address on every view: one client all the same, refused past 60.
    const statuses = await views(stack.gatewayUrl, 61, (i) => `198.51.100.${i + 1}`);
    expect(statuses.slice(0, 60).every((s) => s === 404)).toBe(true);
    expect(statuses[60]).toBe(429);
  });

  it("with no trusted proxies a spoofed X-Forwarded-For does not satisfy a key's allowedIps", async () => {
    const key = await createKey(stack, owner, { name: 'office only', allowedIps: ['203.0.113.7'] });
    const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key, 'bearer', {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_permissions');
  });

  it('behind a trusted proxy two clients get separate budgets; a client cannot pick its address by prepending to X-Forwarded-For', async () => {
    const first = await views(behindProxy.url, 61, () => '198.51.100.1');
    expect(first.slice(0, 60).every((s) => s === 404)).toBe(true);
    expect(first[60]).toBe(429);
    // Another shopper behind the same proxy is not refused for the first one's views.
    expect(await views(behindProxy.url, 5, () => '198.51.100.2')).toEqual([404, 404, 404, 404, 404]);
    // The first one claiming another address in front of what the proxy appended stays itself.
    expect(await views(behindProxy.url, 1, () => '198.51.100.3, 198.51.100.1')).toEqual([429]);
  });

  it("behind a trusted proxy allowedIps matches the forwarded client, not the proxy or a client's own claim", async () => {
    const key = await createKey(stack, owner, { name: 'office only', allowedIps: ['203.0.113.7'] });
    const call = (xff?: string) =>
      callWithKey(stack, 'GET', '/api/v1/api-keys', key.key, 'bearer', {
        gatewayUrl: behindProxy.url,
        headers: xff ? { 'x-forwarded-for': xff } : {},
      });
    expect((await call('203.0.113.7')).status).toBe(200);
    expect((await call('203.0.113.8')).status).toBe(403);
    expect((await call('203.0.113.7, 198.51.100.9')).status).toBe(403);
    // The proxy's own address is not the client's.
    expect((await call()).status).toBe(403);
  });
});

describe('finding 10: the public health answer and key shares give nothing away', () => {
  it('/api/certificate/health answers only status and timestamp, naming no database, chain or relayer', async () => {
    const res = await stack.call('GET', '/api/certificate/health');
    expect([200, 503]).toContain(res.status);
    expect(Object.keys(res.body).sort()).toEqual(['status', 'timestamp']);
    expect(res.body.status).toBe(res.status === 200 ? 'ok' : 'degraded');
  });

  it("sharing a key refuses malformed user ids (400 userIds) and another enterprise's or unknown users (404); nothing is written", async () => {
    const k = await createKey(stack, owner, { name: 'shared carefully' });
    // A user of another enterprise who has signed in there.
    const stranger = await stack.token({ sub: 'stranger-sub', role: 'owner' });
    expect((await stack.call('GET', '/api/v1/api-keys', { auth: stranger })).status).toBe(200);
    const share = (userIds: string[]) =>
      stack.call('POST', `/api/v1/api-keys/${k.id}/share`, {
        auth: owner,
        body: { userIds, permissions: ['read', 'rotate'] },
      });
    const refused = (res: { status: number; body: any }) => [
      res.status,
      res.body.error?.code,
      res.body.error?.param,
    ];
    for (const ids of [[''], ['two words'], ['ok-looking', ' ']])
      expect(refused(await share(ids))).toEqual([400, 'parameter_invalid', 'userIds']);
    for (const ids of [['stranger-sub'], ['made-up-junk'], ['user_AAAAAAAAAAAAAAAAAAAAAAAA']])
      expect(refused(await share(ids))).toEqual([404, 'resource_not_found', 'userIds']);
    const logs = await stack.call('GET', `/api/v1/api-keys/${k.id}/audit-logs`, { auth: owner });
    expect(logs.body.logs.map((l: { action: string }) => l.action)).not.toContain('key.shared');
    // The stranger's session of their own enterprise gained nothing.
    expect((await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: stranger })).status).toBe(404);
  });
});
