// Spreads its load (Operations II), on the whole stack: a gateway given a name that resolves to
// two replicas of a backend (an `ipv4:` list, as `dns:///` of a headless Service resolves in
// the cluster) sends its calls to both, and when one replica goes, the other takes every call
// without a 5xx. The kit's test (packages/kit/test/grpc-spread.test.ts) proves the client; this
// one proves the gateway and a real service process are wired to use it. Row-count gauges come
// from one of the two only, so a sum over pods counts each row once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestStack, type TestStack } from '../src/index.js';
import {
  startExtraBackend,
  startExtraGateway,
  type ExtraBackend,
  type ExtraGateway,
} from '../src/gateway2.js';

let stack: TestStack;
let keys2: ExtraBackend;
let gateway: ExtraGateway;

beforeAll(async () => {
  stack = await startTestStack({ metrics: true });
  keys2 = await startExtraBackend(stack, 'keys');
  gateway = await startExtraGateway(stack, {
    env: { HALLMARK_KEYS_ADDR: `ipv4:${stack.env.HALLMARK_KEYS_ADDR},${keys2.address}` },
  });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await keys2?.stop();
  await stack?.close();
}, 60_000);

/** Calls of keys' ListKeys a keys process has answered, by its own /metrics. */
async function listKeysCalls(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let total = 0;
  for (const m of text.matchAll(
    /^hallmark_grpc_server_handling_seconds_count\{[^}]*grpc_method="ListKeys"[^}]*\} (\d+)/gm,
  ))
    total += Number(m[1]);
  return total;
}

const listKeys = async (token: string) =>
  (await fetch(`${gateway.url}/api/v1/api-keys`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('two replicas of a backend', () => {
  it('exactly one reports the gauges every replica would read alike (its database’s metrics-lock holder)', async () => {
    const shared = /^hallmark_outbox_backlog(\{[^}]*\})? \d+$/m;
    const own = /^hallmark_db_pool_connections\{/m;
    const texts = await Promise.all(
      [stack.metricsUrls.keys, keys2.metricsUrl].map(async (url) => (await fetch(url)).text()),
    );
    expect(texts.filter((t) => shared.test(t))).toHaveLength(1);
    // Per-process series stay on both.
    expect(texts.filter((t) => own.test(t))).toHaveLength(2);
  });

  it('both take the gateway’s calls; with one stopped the other answers every call, no 5xx', async () => {
    const token = await stack.token();
    const calls = 40;
    const statuses: number[] = [];
    for (let i = 0; i < calls; i++) statuses.push(await listKeys(token));
    expect(statuses.every((s) => s === 200)).toBe(true);

    const first = await listKeysCalls(stack.metricsUrls.keys);
    const second = await listKeysCalls(keys2.metricsUrl);
    expect(first + second).toBe(calls);
    // Round robin: about half each; a pinned connection would give one of them all 40.
    expect(Math.min(first, second)).toBeGreaterThanOrEqual(calls / 4);

    await keys2.stop();
    const after: number[] = [];
    for (let i = 0; i < 20; i++) after.push(await listKeys(token));
    expect(after.filter((s) => s >= 500)).toEqual([]);
    expect(await listKeysCalls(stack.metricsUrls.keys)).toBe(first + 20);
  }, 90_000);
});
