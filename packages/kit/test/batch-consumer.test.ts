// startBatchConsumer on the real PostgreSQL and NATS: many events per transaction, each id
// handled once (redeliveries and re-publishes inside and across batches), and a failing
// event isolated from the rest of its batch.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  newId,
  openDatabase,
  startBatchConsumer,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '../src/index.js';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '../src/testing.js';

const log = createLogger('kit-test', 'silent');
const database = uniqueDatabaseName('kitbatch');
const source = `kitbatch${Date.now()}`;
let pool: Pool;
let bus: Bus;

beforeAll(async () => {
  pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database });
  await pool.query('CREATE TABLE received (event_id text NOT NULL, n int NOT NULL)');
  bus = await connectBus(TEST_NATS_URL, 'kit-batch-test');
});

afterAll(async () => {
  const jsm = await (await import('@nats-io/jetstream')).jetstreamManager(bus.nc);
  for (const d of ['a', 'b']) await jsm.consumers.delete('HALLMARK', `${source}-${d}`).catch(() => undefined);
  await bus.close();
  await closeTestDatabase(pool, database);
});

function event(n: number, subject: string): EventEnvelope {
  return {
    id: newId('event'),
    type: 'kit.probe.sent',
    source: subject,
    occurred_at: new Date().toISOString(),
    enterprise_id: null,
    livemode: true,
    request_id: null,
    data: { n },
  } as EventEnvelope;
}

async function publish(subject: string, e: EventEnvelope, msgID?: string) {
  await bus.js.publish(`hallmark.${source}.${subject}.kit.probe.sent`, JSON.stringify(e), { msgID });
}

describe('startBatchConsumer', () => {
  it('handles many events per transaction, each id once, re-publishes included', async () => {
    const events = Array.from({ length: 300 }, (_, i) => event(i, 'a'));
    // Published before the consumer starts, so batches fill; every 10th is published twice
    // under another message id (JetStream cannot dedupe it; the ledger must).
    for (const e of events) {
      await publish('a', e, e.id);
      if ((e.data as { n: number }).n % 10 === 0) await publish('a', e, `${e.id}-again`);
    }
    const sizes: number[] = [];
    const sub = await startBatchConsumer({
      bus,
      durable: `${source}-a`,
      filter: `hallmark.${source}.a.>`,
      pool,
      log,
      maxBatch: 50,
      handle: async (batch, tx) => {
        sizes.push(batch.length);
        await tx.query('INSERT INTO received (event_id, n) SELECT * FROM unnest($1::text[], $2::int[])', [
          batch.map((e) => e.id),
          batch.map((e) => (e.data as { n: number }).n),
        ]);
      },
    });
    await eventually(async () => {
      const { rows } = await pool.query('SELECT count(*)::int AS c FROM received');
      expect(rows[0].c).toBe(300);
    });
    await new Promise((r) => setTimeout(r, 300));
    const { rows } = await pool.query('SELECT event_id, count(*)::int AS c FROM received GROUP BY event_id');
    expect(rows).toHaveLength(300);
    expect(rows.every((r) => r.c === 1)).toBe(true);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
    await sub.stop();
  });

  it('a failing event is retried alone; the rest of its batch commits and is not handled twice', async () => {
    const events = Array.from({ length: 20 }, (_, i) => event(i === 7 ? 4242 : i, 'b'));
    for (const e of events) await publish('b', e, e.id);
    let failures = 0;
    const handled: string[] = [];
    const sub = await startBatchConsumer({
      bus,
      durable: `${source}-b`,
      filter: `hallmark.${source}.b.>`,
      pool,
      log,
      handle: async (batch, tx) => {
        if (batch.some((e) => (e.data as { n: number }).n === 4242) && failures < 2) {
          failures++;
          throw new Error('transient');
        }
        for (const e of batch) {
          handled.push(e.id);
          await tx.query('INSERT INTO received (event_id, n) VALUES ($1, $2)', [
            e.id,
            (e.data as { n: number }).n,
          ]);
        }
      },
    });
    await eventually(
      async () => {
        const { rows } = await pool.query(
          'SELECT count(*)::int AS c FROM received WHERE event_id = ANY ($1)',
          [events.map((e) => e.id)],
        );
        expect(rows[0].c).toBe(20);
      },
      { timeoutMs: 15_000 },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(failures).toBe(2);
    expect(handled).toHaveLength(20);
    expect(new Set(handled).size).toBe(20);
    await sub.stop();
  });
});
