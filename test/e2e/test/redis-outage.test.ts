// Degrades, never collapses (Operations II): Redis, the rate-limit store every gateway
// shares, stopped. Keyed routes, the public verify page and failed authentication still answer
// without a 5xx; limits are counted in the gateway's own process meanwhile (a 5/min key still
// gets 5); operators see `degraded` (/readyz detail, hallmark_dependency_up, the fallback
// count); once Redis is back the limits are shared again. A Redis server of the test's own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, portInUse, spawnProcess, type ProcessHandle } from '@hallmark/devstack';
import { eventually } from '@hallmark/kit/testing';
import { startTestStack, type TestStack } from '../src/index.js';
import { callWithKey, createKey } from '../src/keys.js';

let stack: TestStack;
let redis: ProcessHandle | undefined;
let port: number;

const startRedis = () =>
  spawnProcess({
    name: 'redis',
    cmd: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    readyCheck: () => portInUse(port),
    ports: [port],
  });

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis();
  stack = await startTestStack({
    metrics: true,
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, HALLMARK_READYZ_DETAIL: 'true' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await redis?.stop();
}, 60_000);

const gatewayMetric = async (pattern: RegExp) =>
  pattern.exec(await (await fetch(stack.metricsUrls.gateway)).text())?.[1];

describe('a Redis outage', () => {
  it('keyed routes, the verify page and failed auth answer without a 5xx; a 5/min key still gets 5 of 12; readyz says degraded; shared again after', async () => {
    const owner = await stack.token();
    const ready = await stack.call('GET', '/readyz');
    expect(ready.body.services.redis).toBe('SERVING');

    await redis!.stop();
    const key = await createKey(stack, owner, { rateLimit: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await callWithKey(stack, 'GET', '/api/v1/api-keys', key.key, 'bearer')).status);
    // Counted in this gateway while Redis is gone: the key's stated limit still holds.
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
    // The public page's limiter and the failed-authentication throttle fall back too.
    expect((await stack.call('GET', '/verify/cert_000000000000000000000000')).status).toBeLessThan(500);
    const wrong = await callWithKey(stack, 'GET', '/api/v1/api-keys', `pk_live_${'x'.repeat(40)}`, 'bearer');
    expect(wrong.status).toBe(401);

    const degraded = await stack.call('GET', '/readyz');
    expect(degraded.status).toBe(200);
    expect(degraded.body.degraded).toEqual(['redis']);
    expect(await gatewayMetric(/^hallmark_dependency_up\{[^}]*dependency="redis"[^}]*\} (\d)/m)).toBe('0');
    expect(
      Number(await gatewayMetric(/^hallmark_rate_limit_fallback_total\{[^}]*\} (\d+)/m)),
    ).toBeGreaterThan(0);

    redis = await startRedis();
    const other = await createKey(stack, owner, { rateLimit: 1000 });
    await eventually(
      async () => {
        expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', other.key, 'bearer')).status).toBe(200);
        expect((await stack.call('GET', '/readyz')).body.degraded).toEqual([]);
      },
      { timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(await gatewayMetric(/^hallmark_dependency_up\{[^}]*dependency="redis"[^}]*\} (\d)/m)).toBe('1');
  }, 120_000);
});
