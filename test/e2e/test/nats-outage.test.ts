// Degrades, never collapses (Operations II): NATS stopped for 30 s under a redemption load.
// Backends stay ready (their database answers; the outbox holds the events), so the gateway
// answers no 5xx; NATS is reported down for operators (hallmark_dependency_up); once it is
// back every event committed meanwhile is published and handled by its consumer.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureNats, sleep, type NatsHandle } from '@hallmark/devstack';
import { eventually } from '@hallmark/kit/testing';
import path from 'node:path';
import { serviceQuery } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { createKey } from '../src/keys.js';

let stack: TestStack;
let restarted: NatsHandle | undefined;

beforeAll(async () => {
  stack = await startTestStack({
    metrics: true,
    env: { HALLMARK_READYZ_DETAIL: 'true', HALLMARK_READINESS_INTERVAL_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await restarted?.stop();
  await stack?.close();
}, 60_000);

const natsUp = async (service: 'vouchers' | 'notify') => {
  const text = await (await fetch(stack.metricsUrls[service])).text();
  return /^hallmark_dependency_up\{[^}]*dependency="nats"[^}]*\} (\d)/m.exec(text)?.[1];
};

describe('a NATS outage', () => {
  it('30 s without NATS under redemptions: 0 5xx, backends stay ready, every event is handled after', async () => {
    const owner = await stack.token();
    const { key } = await createKey(stack, owner, { name: 'outage', rateLimit: 100_000 });
    const created = await stack.call('POST', '/api/v1/vouchers', {
      auth: key,
      body: { code: 'OUTAGE01', type: 'percentage', value: 10, max_uses: 100_000 },
    });
    expect(created.status).toBe(201);
    const statuses: Record<number, number> = {};
    let n = 0;
    // Paced at ~10/s: the redeem group allows a key 200 a minute, and an unpaced loop spends
    // them all before NATS stops on a quiet machine (then nothing is left to wait in the outbox).
    const redeemFor = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const res = await stack.call('POST', '/api/v1/vouchers/redeem', {
          auth: key,
          body: { code: 'OUTAGE01', order_id: `order-${n++}`, amount: 1000 },
        });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        await sleep(100);
      }
    };

    await redeemFor(2000);
    const port = Number(new URL(stack.nats.url).port);
    await stack.nats.stop();
    const load = redeemFor(30_000);
    // Meanwhile: NATS is seen down, and every backend is still SERVING.
    await eventually(async () => expect(await natsUp('vouchers')).toBe('0'), { timeoutMs: 10_000 });
    const ready = await stack.call('GET', '/readyz');
    expect(ready.body.degraded).toEqual([]);
    await load;
    const during = await serviceQuery<{ c: number }>(
      stack,
      'vouchers',
      'SELECT count(*)::int AS c FROM outbox WHERE published_at IS NULL',
    );
    expect(during[0]!.c).toBeGreaterThan(0); // the events waited in the outbox

    restarted = await ensureNats({
      dataDir: stack.env.HALLMARK_DATA_DIR!,
      forceSpawn: true,
      port,
      logFile: path.join(stack.env.HALLMARK_DATA_DIR!, 'logs', 'nats-restarted.log'),
    });
    await redeemFor(2000);
    expect(Object.keys(statuses).filter((s) => s.startsWith('5'))).toEqual([]);
    expect(statuses[201] ?? statuses[200]).toBeGreaterThan(20);

    // Every event vouchers committed is published, and notify (its webhook fan-out) handled each.
    await eventually(
      async () => {
        const [left] = await serviceQuery<{ c: number }>(
          stack,
          'vouchers',
          'SELECT count(*)::int AS c FROM outbox WHERE published_at IS NULL',
        );
        expect(left!.c).toBe(0);
        const ids = (await serviceQuery<{ id: string }>(stack, 'vouchers', 'SELECT id FROM outbox')).map(
          (r) => r.id,
        );
        const handled = await serviceQuery<{ c: number }>(
          stack,
          'notify',
          'SELECT count(DISTINCT event_id)::int AS c FROM processed_events WHERE event_id = ANY($1)',
          [ids],
        );
        expect(handled[0]!.c).toBe(ids.length);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await eventually(async () => expect(await natsUp('vouchers')).toBe('1'), { timeoutMs: 10_000 });
  }, 150_000);
});
