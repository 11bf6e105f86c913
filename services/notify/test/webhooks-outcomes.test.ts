// Outcomes written in batches (workers/recorder.ts over outcomes-store.ts) on the real
// PostgreSQL: answers that arrive together cost one statement, and move every delivery, its
// attempt log and its endpoint or subscription exactly as writing them one by one did —
// including a stale claim (its lease was lost: nothing moves) and a retry between successes
// (written in its place, in order).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Encryptor, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import path from 'node:path';
import { DeliveriesStore, type Claim } from '../src/webhooks/deliveries-store.js';
import { testEvent, versionedBody } from '../src/webhooks/domain/events.js';
import { WebhooksStore } from '../src/webhooks/store.js';
import { OutcomeRecorder } from '../src/webhooks/workers/recorder.js';
import { TEST_ENCRYPTION_KEY } from './webhooks-helpers.js';

const database = uniqueDatabaseName('notify_outcomes');
const scope = { enterpriseId: newId('enterprise'), livemode: true };
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
let pool: Pool;
let store: WebhooksStore;
let deliveries: DeliveriesStore;

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  const encryptor = new Encryptor(TEST_ENCRYPTION_KEY);
  store = new WebhooksStore(pool, encryptor);
  deliveries = new DeliveriesStore(pool, encryptor, 3);
}, 30_000);

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

async function queue(column: 'endpoint_id' | 'subscription_id', target: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const event = testEvent(
      'user.created',
      scope,
      { eventId: newId('event'), objectId: `user_${i}` },
      new Date(),
    );
    await deliveries.enqueueTest(scope, target, event, versionedBody(event), column);
  }
}

const row = async (table: string, id: string) =>
  (await pool.query(`SELECT * FROM ${table} WHERE id = $1`, [id])).rows[0] as Record<string, unknown>;

describe('outcomes written in batches', () => {
  it('answers arriving together take one statement and move deliveries, attempt logs, endpoint and subscription as one by one', async () => {
    const ep = await store.createEndpoint(scope, {
      url: 'https://127.0.0.1:9/ep',
      events: ['user.created'],
      secret: SECRET,
    });
    const sub = await store.createSubscription(scope, {
      url: 'https://127.0.0.1:9/sub',
      events: ['voucher.created'],
      enabled: true,
      secret: SECRET,
    });
    // Their last deliveries failed: the endpoint is `failed`, the subscription two failures in.
    await pool.query(`UPDATE webhook_endpoints SET status = 'failed' WHERE id = $1`, [ep.id]);
    await pool.query(
      `UPDATE enterprise_subscriptions SET status = 'failing', consecutive_failures = 2 WHERE id = $1`,
      [sub.id],
    );
    await queue('endpoint_id', ep.id, 12);
    await queue('subscription_id', sub.id, 3);
    // The endpoint's first: the stale claim and the retry below are the endpoint's, so the
    // subscription's last answers are successes.
    const claims = (await deliveries.claimDue(100, 60_000, 100)).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(claims.map((c) => c.kind)).toEqual([
      ...Array(12).fill('endpoint'),
      ...Array(3).fill('subscription'),
    ]);

    // Counts the statements the recorder sends (the store does the writing).
    const calls = { batches: [] as number[], single: 0 };
    const recorder = new OutcomeRecorder({
      recordSucceeded: (items) => {
        calls.batches.push(items.length);
        return deliveries.recordSucceeded(items);
      },
      record: (...args) => {
        calls.single++;
        return deliveries.record(...args);
      },
    });
    const ok = { statusCode: 200, latencyMs: 12, error: null };
    const stale: Claim = { ...claims[1]!, token: 'lost-lease' };
    const retried = claims[2]!;
    const answers = await Promise.all(
      claims.map((c, i) =>
        i === 1
          ? recorder.record(stale, ok, { status: 'succeeded', waitS: null })
          : i === 2
            ? recorder.record(
                retried,
                { statusCode: 503, latencyMs: 5, error: 'HTTP 503' },
                { status: 'pending', waitS: 60 },
              )
            : recorder.record(c, ok, { status: 'succeeded', waitS: null }),
      ),
    );

    // The first answer is written at once; the rest came while it was: the success before
    // the retry, the retry in its place, then every success after it in one statement.
    expect(calls).toEqual({ batches: [1, 1, 12], single: 1 });
    expect(answers[1]).toBeNull();
    expect(answers[2]).toBe('pending');
    expect(answers.filter((a) => a === 'succeeded')).toHaveLength(13);

    for (const [i, c] of claims.entries()) {
      const d = await row('webhook_deliveries', c.id);
      const log = (
        await pool.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1 AND attempt = 1', [c.id])
      ).rows[0];
      if (i === 1) {
        // Stale: the delivery stays claimed by its real holder; the attempt is still logged.
        expect(d).toMatchObject({ status: 'pending', claim_token: claims[1]!.token, delivered_at: null });
        expect(log).toMatchObject({ status_code: 200 });
      } else if (i === 2) {
        expect(d).toMatchObject({ status: 'pending', claim_token: null });
        expect((d.next_attempt_at as Date).getTime()).toBeGreaterThan(Date.now() + 50_000);
        expect(log).toMatchObject({ status_code: 503, error: 'HTTP 503' });
      } else {
        expect(d).toMatchObject({ status: 'succeeded', claim_token: null, next_attempt_at: null });
        expect(d.delivered_at).toBeInstanceOf(Date);
        expect(log).toMatchObject({ status_code: 200, latency_ms: 12, error: null });
      }
    }
    expect(await row('webhook_endpoints', ep.id)).toMatchObject({ status: 'active' });
    expect(await row('enterprise_subscriptions', sub.id)).toMatchObject({
      status: 'active',
      consecutive_failures: 0,
      enabled: true,
    });
  }, 30_000);
});

describe('planned once per connection', () => {
  it('the claim and a batch of successes run their generic plan, not a fresh plan at every execution, and reach rows through indexes even when planned on small tables', async () => {
    // One connection, so every execution and the read of its plan counters share a session.
    const single = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database, max: 1 });
    try {
      const store = new DeliveriesStore(single, new Encryptor(TEST_ENCRYPTION_KEY), 3);
      const ep = await new WebhooksStore(single, new Encryptor(TEST_ENCRYPTION_KEY)).createEndpoint(scope, {
        url: 'https://127.0.0.1:9/plans',
        events: ['user.created'],
        secret: SECRET,
      });
      await queue('endpoint_id', ep.id, 8);
      // More executions than the five custom plans PostgreSQL tries before it may settle.
      for (let i = 0; i < 8; i++) {
        const claims = await store.claimDue(1, 60_000, 100);
        await store.recordSucceeded(claims.map((c) => ({ claim: c, statusCode: 200, latencyMs: 1 })));
      }
      const { rows } = await single.query<{ name: string; generic_plans: string; custom_plans: string }>(
        `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
         WHERE name IN ('notify_claim_due', 'notify_record_succeeded') ORDER BY name`,
      );
      expect(rows.map((r) => [r.name, Number(r.generic_plans), Number(r.custom_plans)])).toEqual([
        ['notify_claim_due', 8, 0],
        ['notify_record_succeeded', 8, 0],
      ]);
      // Those plans were built while the tables held a few rows, yet reach them through indexes:
      // a scan of every delivery, testing each against the ids, would be kept as the table grows.
      const client = await single.connect();
      try {
        await client.query('BEGIN; SET LOCAL plan_cache_mode = force_generic_plan');
        const plans = [
          await client.query(`EXPLAIN EXECUTE notify_claim_due(1, 'tok', 60000, 100)`),
          await client.query(`EXPLAIN EXECUTE notify_record_succeeded('{d}', '{t}', '{1}', '{200}', '{1}')`),
        ].map((r) => r.rows.map((l: Record<string, string>) => l['QUERY PLAN']).join('\n'));
        await client.query('ROLLBACK');
        for (const plan of plans) {
          expect(plan).toContain('webhook_deliveries_pkey');
          expect(plan).not.toMatch(/Seq Scan on webhook_(deliveries|attempts)/);
        }
      } finally {
        client.release();
      }
    } finally {
      await single.end();
    }
  }, 30_000);
});
