// RetrySubscriptionDelivery on the real PostgreSQL, the delivery worker in-process (an agent
// trusting a CA made at test time) and a local HTTPS receiver: a subscription's pending
// delivery is attempted now, a failed or succeeded one is replayed once (same event id and
// body, signed X-Webhook-* with the subscription's secret, no automatic retry after it); and
// another enterprise's, mode's or subscription's delivery is not found. Schedule: one retry
// after 60 s, so nothing here waits for it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createGuardedAgent,
  createLogger,
  newId,
  openDatabase,
  OutboundGuard,
  type Bus,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Delivery } from '@hallmark/proto/notify/v1/webhooks';
import path from 'node:path';
import type { Agent } from 'undici';
import { createWebhooks, type Webhooks } from '../src/webhooks/index.js';
import {
  makeCertificate,
  principal,
  refusal,
  startReceiver,
  TEST_ENCRYPTION_KEY,
  verifyEnterpriseSignature,
  type Receiver,
} from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const database = uniqueDatabaseName('notify_replay');
let pool: Pool;
let bus: Bus;
let agent: Agent;
let receiver: Receiver;
let webhooks: Webhooks;
let api: Webhooks['api'];

beforeAll(async () => {
  receiver = await startReceiver(await makeCertificate());
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(TEST_NATS_URL, 'notify-replay-test');
  webhooks = createWebhooks(
    { pool, bus, log: createLogger('notify-replay-test', 'silent') },
    {
      encryptionKeys: TEST_ENCRYPTION_KEY,
      outboundAllowHosts: '127.0.0.1',
      retryScheduleS: [60],
      agent: (guard: OutboundGuard) => (agent = createGuardedAgent(guard, { tls: { ca: receiver.ca } })),
      timeoutMs: 2000,
      pollIntervalMs: 100,
    },
  );
  api = webhooks.api;
  // Only the delivery worker: deliveries here are test sends, no event stream is consumed.
  await webhooks.worker.start();
}, 30_000);

afterAll(async () => {
  await webhooks.worker.stop();
  await agent.close();
  await bus.close();
  await receiver.close();
  await closeTestDatabase(pool, database);
});

async function deliveryOf(p: Principal, subscriptionId: string, id: string): Promise<Delivery> {
  const res = await api.listSubscriptionDeliveries(
    { principal: p, subscription_id: subscriptionId, status: '' },
    CALL,
  );
  return res.deliveries.find((d) => d.id === id)!;
}

/** Waits until the delivery has made `attempts` attempts, the last one answered (its outcome recorded). */
const settled = (p: Principal, subscriptionId: string, id: string, attempts: number, status: string) =>
  eventually(
    async () => {
      const d = await deliveryOf(p, subscriptionId, id);
      expect([d.attempts, d.status, d.attempt_log.at(-1)?.status_code !== undefined]).toEqual([
        attempts,
        status,
        true,
      ]);
      return d;
    },
    { timeoutMs: 10_000, intervalMs: 100 },
  );

describe("replaying an enterprise subscription's delivery", () => {
  it('a pending delivery is attempted now; a failed or succeeded one once more, same event id, signed X-Webhook-*, no retry after it', async () => {
    const p = principal();
    const sub = await api.createSubscription(
      { principal: p, url: `${receiver.url}/replay`, events: ['voucher.minted'] },
      CALL,
    );
    let answer = 500;
    receiver.respond = (r) => (r.path === '/replay' ? answer : 200);
    const queued = await api.sendSubscriptionTest({ principal: p, subscription_id: sub.id }, CALL);
    const retry = () =>
      api.retrySubscriptionDelivery({ principal: p, subscription_id: sub.id, delivery_id: queued.id }, CALL);

    // The first attempt failed: the next is a minute away. Retrying moves it to now.
    const waiting = await settled(p, sub.id, queued.id, 1, 'pending');
    expect(Date.parse(waiting.next_attempt_at!) - Date.now()).toBeGreaterThan(50_000);
    // The answer's status and attempts may already show the worker's attempt (it polls every
    // 100 ms); the one more attempt granted is what it always says.
    expect(await retry()).toMatchObject({ max_attempts: 2, subscription_id: sub.id });
    const failed = await settled(p, sub.id, queued.id, 2, 'failed');
    expect(failed.attempt_log.map((a) => a.status_code)).toEqual([500, 500]);

    // Failed: a replay is one more attempt, delivered now.
    answer = 200;
    expect(await retry()).toMatchObject({ max_attempts: 3 });
    await settled(p, sub.id, queued.id, 3, 'succeeded');

    // Succeeded: a replay that fails is not retried on the schedule.
    answer = 500;
    expect(await retry()).toMatchObject({ max_attempts: 4 });
    const last = await settled(p, sub.id, queued.id, 4, 'failed');
    expect(last.next_attempt_at).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));

    const got = receiver.received.filter((r) => r.path === '/replay');
    expect(got.map((r) => r.headers['x-hallmark-attempt'])).toEqual(['1', '2', '3', '4']);
    for (const r of got) {
      expect(r.headers['x-webhook-id']).toBe(queued.event_id);
      expect(r.headers['x-webhook-event']).toBe('voucher.minted');
      expect(r.headers['x-hallmark-delivery']).toBe(queued.id);
      expect(r.body).toBe(got[0]!.body);
      expect(verifyEnterpriseSignature(r.headers['x-webhook-signature']!, r.body, sub.secret!)).toBe(true);
      expect(r.headers['webhook-signature']).toBeUndefined();
    }
    // Signed at each attempt: the timestamp is the attempt's own.
    expect(new Set(got.map((r) => r.headers['x-webhook-timestamp'])).size).toBe(4);
  }, 30_000);

  it("another enterprise's or mode's subscription, another subscription's delivery and malformed ids are not found, and nothing moves", async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    // Disabled: the worker never claims these, so the delivery stays as it was queued.
    const mk = async () => {
      const s = await api.createSubscription(
        { principal: p, url: `${receiver.url}/never`, events: ['bulk.job.completed'], enabled: false },
        CALL,
      );
      return s.id;
    };
    const subId = await mk();
    const otherSubId = await mk();
    const d = await api.sendSubscriptionTest({ principal: p, subscription_id: subId }, CALL);
    const retry = (who: Principal, subscription_id: string, delivery_id: string) =>
      refusal(api.retrySubscriptionDelivery({ principal: who, subscription_id, delivery_id }, CALL));
    const notFound = expect.objectContaining({ code: 'resource_not_found', http: 404 });

    expect(await retry(principal(), subId, d.id)).toEqual(notFound);
    expect(await retry(principal(ent, false), subId, d.id)).toEqual(notFound);
    expect(await retry(p, otherSubId, d.id)).toEqual(notFound);
    expect(await retry(p, subId, newId('delivery'))).toEqual(notFound);
    expect(await retry(p, subId, 'dlv_../../x')).toEqual(notFound);
    expect(await retry(p, newId('webhook'), d.id)).toEqual(notFound);
    const unchanged = await deliveryOf(p, subId, d.id);
    expect(unchanged).toMatchObject({ status: 'pending', attempts: 0, max_attempts: 2 });
    expect(unchanged.next_attempt_at).toBe(d.next_attempt_at);

    // The owner, in its mode, may.
    expect(await retry(p, subId, d.id)).toBeNull();
  });
});
