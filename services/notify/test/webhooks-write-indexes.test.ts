// The indexes a delivery's writes pay for (migrations 0202, 0203) on the real PostgreSQL: an
// endpoint's delivery enters no index of subscriptions or listen sessions, fan-out stays
// idempotent per (event, target) through the primary key alone, and the readers the dropped
// index of every pending row served (the backlog gauge, the listen sweep) still count every
// kind of delivery.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Encryptor, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import path from 'node:path';
import { DeliveriesStore } from '../src/webhooks/deliveries-store.js';
import { testEvent, versionedBody } from '../src/webhooks/domain/events.js';
import { SessionsStore } from '../src/webhooks/sessions-store.js';
import { WebhooksStore } from '../src/webhooks/store.js';
import { TEST_ENCRYPTION_KEY } from './webhooks-helpers.js';

const database = uniqueDatabaseName('notify_write_indexes');
const scope = { enterpriseId: newId('enterprise'), livemode: true };
let pool: Pool;
let store: WebhooksStore;
let deliveries: DeliveriesStore;
let sessions: SessionsStore;

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  const encryptor = new Encryptor(TEST_ENCRYPTION_KEY);
  store = new WebhooksStore(pool, encryptor);
  deliveries = new DeliveriesStore(pool, encryptor, 3);
  sessions = new SessionsStore(pool, encryptor);
}, 30_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

const event = (i: number) =>
  testEvent('user.created', scope, { eventId: newId('event'), objectId: `user_${i}` }, new Date());

describe('delivery write indexes', () => {
  it('an endpoint delivery enters no subscription or session index, and the backlog still counts endpoints and sessions', async () => {
    const ep = await store.createEndpoint(scope, {
      url: 'https://127.0.0.1:9/ep',
      events: ['user.created'],
      secret: `whsec_${Buffer.alloc(32, 5).toString('base64')}`,
    });
    const session = await sessions.open(scope, { events: [], secret: 'whsec_test', actorId: null });
    const events = [0, 1, 2].map(event);
    const inserted = await deliveries.insertDeliveries(pool, [
      ...events.map((e) => ({
        event: e,
        target: { column: 'endpoint_id' as const, id: ep.id, type: e.type, body: versionedBody(e) },
      })),
      {
        event: events[0]!,
        target: { column: 'session_id', id: session.id, type: 'user.created', body: '{}' },
      },
    ]);
    expect(inserted).toBe(4);
    // The same deliveries again (a redelivered event): the derived ids conflict, nothing is made.
    const again = await deliveries.insertDeliveries(pool, [
      { event: events[1]!, target: { column: 'endpoint_id', id: ep.id, type: 'user.created', body: '{}' } },
      {
        event: events[0]!,
        target: { column: 'session_id', id: session.id, type: 'user.created', body: '{}' },
      },
    ]);
    expect(again).toBe(0);
    // One of the endpoint's is retried later: pending, not due.
    await pool.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour'
       WHERE id = (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 LIMIT 1)`,
      [ep.id],
    );
    expect(await deliveries.backlog()).toEqual({ pending: 4, due: 3 });

    // Entries per index, read from the index itself (an index-only count through each).
    const entries = async (index: string, where: string): Promise<number> => {
      // One connection: the setting holds for it only.
      const client = await pool.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT count(*) FROM webhook_deliveries WHERE ${where}`,
        );
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(index);
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`,
        );
        return rows[0]!.n;
      } finally {
        await client.query('RESET enable_seqscan');
        client.release();
      }
    };
    expect(await entries('webhook_deliveries_endpoint_recent', 'endpoint_id IS NOT NULL')).toBe(3);
    expect(
      await entries('webhook_deliveries_session_pending', "status = 'pending' AND session_id IS NOT NULL"),
    ).toBe(1);
    // Partial: the predicate is what leaves the other kinds' rows (NULL here) out of the index.
    const { rows: defs } = await pool.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'webhook_deliveries'`,
    );
    const def = new Map(defs.map((d) => [d.indexname, d.indexdef]));
    for (const [index, column] of [
      ['webhook_deliveries_subscription_recent', 'subscription_id'],
      ['webhook_deliveries_endpoint_recent', 'endpoint_id'],
    ] as const)
      expect(def.get(index)).toContain(`WHERE (${column} IS NOT NULL)`);
    for (const gone of ['due', 'endpoint_event', 'subscription_event', 'session_event'])
      expect(def.has(`webhook_deliveries_${gone}`)).toBe(false);

    // The sweep still finds an ended session's pending delivery and fails it.
    await pool.query(`UPDATE listen_sessions SET ended_at = now() WHERE id = $1`, [session.id]);
    expect(await sessions.sweep()).toBe(1);
    expect(await deliveries.backlog()).toEqual({ pending: 3, due: 2 });
  });
});
