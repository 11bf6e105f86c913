// Per-endpoint concurrency caps on the real PostgreSQL: one endpoint whose receiver holds every
// request open, with a backlog larger than the worker's slots and queued first, cannot starve a
// second endpoint; the claim skips disabled endpoints and subscriptions. The worker runs
// in-process with an agent trusting a CA made at test time and a local HTTPS receiver;
// nothing here is timed (the slow receiver answers when released).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createGuardedAgent,
  createLogger,
  Encryptor,
  newId,
  openDatabase,
  OutboundGuard,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import path from 'node:path';
import { DeliveriesStore } from '../src/webhooks/deliveries-store.js';
import { testEvent, versionedBody } from '../src/webhooks/domain/events.js';
import { WebhookSender } from '../src/webhooks/sender.js';
import { WebhooksStore } from '../src/webhooks/store.js';
import { DeliveryWorker } from '../src/webhooks/workers/delivery-worker.js';
import { makeCertificate, startReceiver, TEST_ENCRYPTION_KEY, type Receiver } from './webhooks-helpers.js';

const database = uniqueDatabaseName('notify_fair');
const scope = { enterpriseId: newId('enterprise'), livemode: true };
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
let pool: Pool;
let receiver: Receiver;
let store: WebhooksStore;
let deliveries: DeliveriesStore;

beforeAll(async () => {
  receiver = await startReceiver(await makeCertificate());
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  const encryptor = new Encryptor(TEST_ENCRYPTION_KEY);
  store = new WebhooksStore(pool, encryptor);
  deliveries = new DeliveriesStore(pool, encryptor, 2);
}, 30_000);

afterAll(async () => {
  await receiver.close();
  await closeTestDatabase(pool, database);
});

/** `n` deliveries of distinct events to the endpoint at `urlPath`, due now, in this order. */
async function queue(urlPath: string, n: number): Promise<string> {
  const ep = await store.createEndpoint(scope, {
    url: `${receiver.url}${urlPath}`,
    events: ['user.created'],
    secret: SECRET,
  });
  for (let i = 0; i < n; i++) {
    const event = testEvent(
      'user.created',
      scope,
      { eventId: newId('event'), objectId: `user_${i}` },
      new Date(),
    );
    await deliveries.enqueueTest(scope, ep.id, event, versionedBody(event));
  }
  return ep.id;
}

describe('per-endpoint concurrency caps', () => {
  it('a receiver that holds every request open gets its cap of attempts; another endpoint is served past its backlog', async () => {
    // Held open until released: without a cap, the 12 slow deliveries (queued first) would
    // take all 8 of the worker's slots and the fast endpoint would get none.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let open = 0;
    let mostOpen = 0;
    receiver.respond = async (r) => {
      if (r.path !== '/slow') return 200;
      mostOpen = Math.max(mostOpen, ++open);
      await held;
      open--;
      return 200;
    };
    const slow = await queue('/slow', 12);
    const fast = await queue('/fast', 20);
    const worker = new DeliveryWorker(
      pool,
      deliveries,
      new WebhookSender(
        createGuardedAgent(new OutboundGuard('127.0.0.1'), { tls: { ca: receiver.ca } }),
        60_000,
      ),
      createLogger('notify-fairness-test', 'silent'),
      { schedule: [1], concurrency: 8, perEndpoint: 4, pollIntervalMs: 50 },
    );
    await worker.start();
    const at = (p: string) => receiver.received.filter((r) => r.path === p);
    const list = async (id: string) => (await deliveries.list(scope, id, { page: 1, limit: 100 })).deliveries;
    try {
      // Every fast delivery succeeds while the slow receiver still holds its first requests.
      await eventually(
        async () => expect((await list(fast)).filter((d) => d.status === 'succeeded')).toHaveLength(20),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      expect(open).toBe(4);
      expect(at('/slow')).toHaveLength(4);
      const slowNow = await list(slow);
      expect(slowNow.filter((d) => d.inFlight)).toHaveLength(4);
      expect(slowNow.filter((d) => d.attempts === 0 && d.status === 'pending')).toHaveLength(8);

      // Released, the slow endpoint drains too, never more than its cap at once.
      release();
      await eventually(
        async () => expect((await list(slow)).filter((d) => d.status === 'succeeded')).toHaveLength(12),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      expect(mostOpen).toBe(4);
      expect(at('/slow')).toHaveLength(12);
      expect(at('/fast')).toHaveLength(20);
    } finally {
      release();
      await worker.stop();
    }
  }, 60_000);

  it('a disabled endpoint or subscription, its due rows queued first, is skipped by the claim; enabled again, it is served', async () => {
    const off = await queue('/off', 5);
    const sub = await store.createSubscription(scope, {
      url: `${receiver.url}/sub-off`,
      events: ['voucher.created'],
      enabled: true,
      secret: SECRET,
    });
    for (let i = 0; i < 5; i++) {
      const event = testEvent(
        'user.created',
        scope,
        { eventId: newId('event'), objectId: `u${i}` },
        new Date(),
      );
      await deliveries.enqueueTest(scope, sub.id, event, versionedBody(event), 'subscription_id');
    }
    await store.updateEndpoint(scope, off, { status: 'disabled' });
    await store.setEnabled(scope, sub.id, false);
    await queue('/on', 3);
    // Room for every row: only the enabled endpoint's are taken.
    const first = await deliveries.claimDue(20, 60_000, 10);
    expect(first.map((c) => c.url)).toEqual(Array(3).fill(`${receiver.url}/on`));
    await store.updateEndpoint(scope, off, { status: 'active' });
    await store.setEnabled(scope, sub.id, true);
    const next = await deliveries.claimDue(20, 60_000, 10);
    expect(next.map((c) => c.url).sort()).toEqual([
      ...Array(5).fill(`${receiver.url}/off`),
      ...Array(5).fill(`${receiver.url}/sub-off`),
    ]);
  }, 30_000);
});
