// Listen sessions and the health of enterprise subscriptions, on the real PostgreSQL and
// NATS: events published on JetStream, fan-out, worker and listen hub in-process, the Listen
// RPC over a real gRPC server and the kit's streaming client. A dead URL is a closed port.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createGrpcClient,
  createLogger,
  HallmarkError,
  newId,
  openDatabase,
  randomBase62,
  startGrpcServer,
  type Bus,
  type EventEnvelope,
  type Pool,
  type RunningGrpcServer,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { WebhooksServiceClient, type ListenMessage } from '@hallmark/proto/notify/v1/webhooks';
import { createServer } from 'node:net';
import path from 'node:path';
import { createWebhooks, type Webhooks } from '../src/webhooks/index.js';
import {
  TEST_ENCRYPTION_KEY,
  verifyEnterpriseSignature,
  verifyServiceSignature,
  verifyStandardWebhook,
} from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('notify-test', 'silent');
const database = uniqueDatabaseName('notify');
const source = `whl${randomBase62(8).toLowerCase()}`;
let pool: Pool;
let bus: Bus;
let webhooks: Webhooks;
let server: RunningGrpcServer;
let client: ReturnType<typeof createGrpcClient<WebhooksServiceClient>>;

const principal = (enterpriseId: string, livemode = false): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: 'user_test',
  actor_type: 'user',
  scopes: ['admin.*'],
});

async function publish(type: string, enterpriseId: string, data: unknown, livemode = false) {
  const event = {
    id: newId('event'),
    type,
    source: 'vouchers',
    occurred_at: new Date().toISOString(),
    enterprise_id: enterpriseId,
    livemode,
    request_id: null,
    data,
  } as EventEnvelope;
  await bus.js.publish(`hallmark.${source}.${type}`, JSON.stringify(event), { msgID: event.id });
  return event;
}

const txn = () => ({ object: { id: newId('transaction'), type: 'voucher_redemption', amount: 150 } });
const job = () => ({
  jobId: newId('job'),
  status: 'completed',
  summary: { total: 1, succeeded: 1, failed: 0 },
  results: [],
});

/** Reads a Listen stream into a list until aborted. */
function listen(p: Principal, events: string[] = []) {
  const abort = new AbortController();
  const got: ListenMessage[] = [];
  const done = (async () => {
    for await (const m of client.streams.listen({ principal: p, events }, { signal: abort.signal }))
      got.push(m);
  })();
  return { got, abort, done };
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(TEST_NATS_URL, 'notify-listen-test');
  webhooks = createWebhooks(
    { pool, bus, log },
    {
      encryptionKeys: TEST_ENCRYPTION_KEY,
      outboundAllowHosts: '127.0.0.1',
      retryScheduleS: [1, 1, 1, 1, 1],
      timeoutMs: 2000,
      pollIntervalMs: 100,
      listenPollIntervalMs: 100,
      maxListenSessions: 3,
      failingAfter: 3,
      disableAfter: 6,
      durable: `notify-webhooks-${source}`,
      filter: `hallmark.${source}.>`,
    },
  );
  for (const w of webhooks.workers) await w.start();
  server = await startGrpcServer({
    name: 'notify-test',
    address: '127.0.0.1:0',
    services: [webhooks.binding],
    log,
  });
  client = createGrpcClient(WebhooksServiceClient, `127.0.0.1:${server.port}`);
}, 30_000);

afterAll(async () => {
  client.close();
  await server.shutdown(1000);
  for (const w of webhooks.workers) await w.stop();
  const jsm = await (await import('@nats-io/jetstream')).jetstreamManager(bus.nc);
  await jsm.consumers.delete('HALLMARK', `notify-webhooks-${source}`).catch(() => undefined);
  await bus.close();
  await closeTestDatabase(pool, database);
});

describe('Listen: a session is a subscription of its own, streamed', () => {
  it('streams the session first, then each event with the body and signatures its endpoint or subscription would get', async () => {
    const ent = newId('enterprise');
    const l = listen(principal(ent));
    const session = await eventually(async () => {
      expect(l.got[0]?.session?.id).toMatch(/^lsn_/);
      return l.got[0]!.session!;
    });
    expect(session).toMatchObject({ livemode: false, events: [] });
    expect(session.secret).toMatch(/^whsec_/);

    const t = await publish('transaction.completed', ent, txn());
    const b = await publish('bulk.job.completed', ent, job());
    await publish('transaction.completed', ent, txn(), true); // live: not this session's mode
    await publish('transaction.completed', newId('enterprise'), txn()); // another enterprise

    const events = await eventually(
      async () => {
        const list = l.got.filter((m) => m.event).map((m) => m.event!);
        expect(list.map((e) => e.event_id).sort()).toEqual([t.id, b.id].sort());
        return list;
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const v = events.find((e) => e.event_id === t.id)!;
    expect(JSON.parse(v.body)).toMatchObject({ id: t.id, type: 'transaction.completed', livemode: false });
    expect(v.headers['content-type']).toBe('application/json');
    expect(verifyServiceSignature(v.headers['x-service-signature']!, v.body, session.secret)).toBe(true);
    expect(verifyStandardWebhook(v.headers, v.body, session.secret)).toBe(true);
    const e = events.find((x) => x.event_id === b.id)!;
    expect(JSON.parse(e.body)).toMatchObject({ event: 'bulk.job.completed', status: 'completed' });
    expect(e.headers['x-webhook-event']).toBe('bulk.job.completed');
    expect(verifyEnterpriseSignature(e.headers['x-webhook-signature']!, e.body, session.secret)).toBe(true);

    // Its own delivery records: one per event, succeeded, with the attempt logged.
    const { rows } = await pool.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM webhook_deliveries WHERE session_id = $1',
      [session.id],
    );
    expect(rows).toEqual([
      { status: 'succeeded', attempts: 1 },
      { status: 'succeeded', attempts: 1 },
    ]);

    l.abort.abort();
    await l.done;
    await eventually(async () => {
      const s = await pool.query('SELECT end_reason FROM listen_sessions WHERE id = $1', [session.id]);
      expect(s.rows[0]).toEqual({ end_reason: 'listener disconnected' });
    });
  }, 20_000);

  it('outlives a database that cannot answer its claims: the stream stays open and the event arrives once it can', async () => {
    const ent = newId('enterprise');
    const l = listen(principal(ent));
    await eventually(async () => expect(l.got[0]?.session?.id).toMatch(/^lsn_/));
    // The claim's statement writes webhook_attempts: without it every claim fails (as in a
    // failover), while the fan-out still records the session's delivery.
    await pool.query('ALTER TABLE webhook_attempts RENAME TO webhook_attempts_away');
    let t: EventEnvelope;
    try {
      t = await publish('transaction.completed', ent, txn());
      await eventually(async () => {
        const { rows } = await pool.query(
          "SELECT 1 FROM webhook_deliveries WHERE event_id = $1 AND session_id IS NOT NULL AND status = 'pending'",
          [t.id],
        );
        expect(rows).toHaveLength(1);
      });
      await new Promise((r) => setTimeout(r, 500)); // several failed claims (polled every 100 ms)
    } finally {
      await pool.query('ALTER TABLE webhook_attempts_away RENAME TO webhook_attempts');
    }
    await eventually(
      async () => expect(l.got.filter((m) => m.event).map((m) => m.event!.event_id)).toEqual([t.id]),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    l.abort.abort();
    await l.done;
  }, 20_000);

  it('hears only the types it asked for, and refuses an unknown type naming it', async () => {
    const ent = newId('enterprise');
    const l = listen(principal(ent), ['bulk.job.completed']);
    await eventually(async () => expect(l.got[0]?.session?.events).toEqual(['bulk.job.completed']));
    await publish('transaction.completed', ent, txn());
    const b = await publish('bulk.job.completed', ent, job());
    await eventually(async () =>
      expect(l.got.filter((m) => m.event).map((m) => m.event!.event_id)).toEqual([b.id]),
    );
    l.abort.abort();
    await l.done;

    const bad = listen(principal(ent), ['transaction.completed', 'nope.nothing']);
    await expect(bad.done).rejects.toMatchObject({ code: 'parameter_invalid', param: 'events[1]' });
  }, 20_000);

  it('records as failed, with the reason, what an ended session did not get', async () => {
    const ent = newId('enterprise');
    const l = listen(principal(ent));
    const session = await eventually(async () => l.got[0]!.session!);
    l.abort.abort();
    await l.done;
    await eventually(async () => {
      const s = await pool.query('SELECT ended_at FROM listen_sessions WHERE id = $1', [session.id]);
      expect(s.rows[0].ended_at).not.toBeNull();
    });
    // A fan-out that committed just after the session ended.
    const event = await publish('transaction.completed', ent, txn());
    await pool.query(
      `INSERT INTO webhook_deliveries (id, session_id, enterprise_id, livemode, event_id, event_type, body,
         max_attempts, next_attempt_at) VALUES ($1, $2, $3, false, $4, 'transaction.completed', '{}', 6, now())`,
      [newId('delivery'), session.id, ent, event.id],
    );
    expect(await webhooks.sessions.sweep()).toBe(1);
    const { rows } = await pool.query<{ status: string; error: string }>(
      `SELECT d.status, a.error FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
       WHERE d.session_id = $1`,
      [session.id],
    );
    expect(rows).toEqual([{ status: 'failed', error: expect.stringContaining('no listener connected') }]);
    // Visible to its enterprise, not to another.
    const listed = await webhooks.api.listListenDeliveries(
      { principal: principal(ent), session_id: session.id, status: '' },
      CALL,
    );
    expect(listed.deliveries).toEqual([
      expect.objectContaining({ session_id: session.id, event_id: event.id, status: 'failed' }),
    ]);
    await expect(
      webhooks.api.listListenDeliveries(
        { principal: principal(newId('enterprise')), session_id: session.id, status: '' },
        CALL,
      ),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  }, 20_000);
});

describe('Listen: open sessions are capped per enterprise (maxListenSessions: 3 here)', () => {
  const opened = async (l: ReturnType<typeof listen>) =>
    eventually(async () => {
      expect(l.got[0]?.session?.id).toMatch(/^lsn_/);
      return l.got[0]!.session!;
    });

  it('refuses the session past the cap with 429 concurrent_limit_exceeded and retry_after, and a closed one frees its slot', async () => {
    const ent = newId('enterprise');
    const three = [listen(principal(ent)), listen(principal(ent, true)), listen(principal(ent))];
    const sessions = await Promise.all(three.map(opened));

    const fourth = listen(principal(ent));
    const refused = (await fourth.done.then(
      () => null,
      (err: unknown) => err,
    )) as HallmarkError;
    expect(refused).toBeInstanceOf(HallmarkError);
    expect(refused).toMatchObject({ code: 'concurrent_limit_exceeded', extras: { retry_after: 60 } });
    expect(refused.httpStatus).toBe(429);
    // Another enterprise has slots of its own.
    const other = listen(principal(newId('enterprise')));
    await opened(other);

    three[0]!.abort.abort();
    await three[0]!.done;
    await eventually(async () => {
      const s = await pool.query('SELECT ended_at FROM listen_sessions WHERE id = $1', [sessions[0]!.id]);
      expect(s.rows[0].ended_at).not.toBeNull();
    });
    const again = listen(principal(ent));
    await opened(again);
    for (const l of [three[1]!, three[2]!, other, again]) l.abort.abort();
    await Promise.all([three[1]!.done, three[2]!.done, other.done, again.done]);
  }, 30_000);

  it('parallel opens at the cap: exactly the free slots are given', async () => {
    const ent = newId('enterprise');
    const calls = Array.from({ length: 6 }, () => listen(principal(ent)));
    const results = await Promise.all(
      calls.map((l) =>
        Promise.race([
          opened(l).then(() => 'opened'),
          l.done.then(
            () => 'ended',
            (err: { code?: string }) => err.code,
          ),
        ]),
      ),
    );
    expect(results.filter((r) => r === 'opened')).toHaveLength(3);
    expect(results.filter((r) => r === 'concurrent_limit_exceeded')).toHaveLength(3);
    for (const l of calls) l.abort.abort();
    await Promise.allSettled(calls.map((l) => l.done));
  }, 30_000);

  it('a session whose listener vanished (no heartbeat) stops counting against the cap', async () => {
    const ent = newId('enterprise');
    // Three sessions left open by a process that died: never ended, last seen long ago.
    for (let i = 0; i < 3; i++) {
      await pool.query(
        `INSERT INTO listen_sessions (id, enterprise_id, livemode, events, secret_enc, seen_at)
         VALUES ($1, $2, false, '{}', 'x', now() - interval '5 minutes')`,
        [newId('listenSession'), ent],
      );
    }
    const l = listen(principal(ent));
    await opened(l);
    l.abort.abort();
    await l.done;
  }, 20_000);
});

describe('enterprise subscriptions: deliveries, test sends and failing state', () => {
  it('a subscription to a dead URL shows each failed attempt with its error, turns failing, then disabled; enabling restores it', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const sub = await webhooks.api.createSubscription(
      { principal: p, url: `https://127.0.0.1:${await closedPort()}/hook`, events: ['bulk.job.completed'] },
      CALL,
    );
    expect(sub).toMatchObject({ status: 'active', consecutive_failures: 0, enabled: true });
    await publish('bulk.job.completed', ent, job());

    const failing = await eventually(
      async () => {
        const s = await webhooks.api.getSubscription({ principal: p, subscription_id: sub.id }, CALL);
        expect(s.status).toBe('failing');
        return s;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(failing.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(failing.last_error).toMatch(/ECONNREFUSED/);

    const { deliveries } = await webhooks.api.listSubscriptionDeliveries(
      { principal: p, subscription_id: sub.id, status: '' },
      CALL,
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ subscription_id: sub.id, event_type: 'bulk.job.completed' });
    expect(deliveries[0]!.attempt_log.length).toBeGreaterThanOrEqual(3);
    for (const a of deliveries[0]!.attempt_log.slice(0, 3)) {
      expect(a.status_code).toBeUndefined();
      expect(a.error).toMatch(/ECONNREFUSED/);
    }

    const disabled = await eventually(
      async () => {
        const s = await webhooks.api.getSubscription({ principal: p, subscription_id: sub.id }, CALL);
        expect(s.status).toBe('disabled');
        return s;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(disabled).toMatchObject({ enabled: false, consecutive_failures: 6 });

    const again = await webhooks.api.updateSubscription(
      { principal: p, subscription_id: sub.id, enabled: true },
      CALL,
    );
    expect(again).toMatchObject({ status: 'active', enabled: true, consecutive_failures: 0 });
  }, 30_000);

  it("a test send is a pending delivery of a sample of the subscription's first type; another enterprise's id is 404", async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const sub = await webhooks.api.createSubscription(
      { principal: p, url: `https://127.0.0.1:${await closedPort()}/hook`, events: ['voucher.minted'] },
      CALL,
    );
    const d = await webhooks.api.sendSubscriptionTest({ principal: p, subscription_id: sub.id }, CALL);
    expect(d).toMatchObject({ subscription_id: sub.id, event_type: 'voucher.minted', status: 'pending' });
    await expect(
      webhooks.api.sendSubscriptionTest({ principal: p, subscription_id: sub.id, event_type: 'x.y' }, CALL),
    ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'event_type' });
    await expect(
      webhooks.api.listSubscriptionDeliveries(
        { principal: principal(newId('enterprise')), subscription_id: sub.id, status: '' },
        CALL,
      ),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});
