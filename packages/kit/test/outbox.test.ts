import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  openDatabase,
  OUTBOX_WAKE,
  outboxBatch,
  outboxInsert,
  OutboxRelay,
  recordEvent,
  startConsumer,
  transaction,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '../src/index.js';
import {
  dropDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '../src/testing.js';

const log = createLogger('kit-test', 'silent');
const producerDb = uniqueDatabaseName('kitprod');
const consumerDb = uniqueDatabaseName('kitcons');
let producer: Pool;
let consumer: Pool;
let bus: Bus;
// A source name unique to this run keeps subjects (and so consumers) isolated between runs.
const source = `kittest${Date.now()}`;

beforeAll(async () => {
  producer = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: producerDb });
  consumer = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: consumerDb });
  await consumer.query('CREATE TABLE received (event_id text NOT NULL, n int NOT NULL)');
  bus = await connectBus(TEST_NATS_URL, 'kit-test');
});

afterAll(async () => {
  await bus.close();
  await producer.end();
  await consumer.end();
  await dropDatabase(producerDb);
  await dropDatabase(consumerDb);
});

async function emit(n: number, opts: { rollback?: boolean } = {}) {
  return transaction(producer, async (tx) => {
    const evt = await recordEvent(tx, source, { type: 'kit.probe.sent', data: { n } });
    if (opts.rollback) throw new Error('rolled back on purpose');
    return evt;
  }).catch(() => null);
}

describe('outbox → JetStream → consumer', () => {
  it('delivers each committed event exactly once per event id, and never a rolled-back one', async () => {
    const stream = `${source}-a`;
    const relay = new OutboxRelay({ pool: producer, js: bus.js, log, pollIntervalMs: 50 });
    const sub = await startConsumer({
      bus,
      durable: stream,
      filter: `hallmark.${source}.>`,
      pool: consumer,
      log,
      handle: async (event: EventEnvelope, tx) => {
        await tx.query('INSERT INTO received (event_id, n) VALUES ($1, $2)', [
          event.id,
          (event.data as { n: number }).n,
        ]);
      },
    });
    await relay.start();
    const committed = [];
    for (let i = 0; i < 20; i++) committed.push(await emit(i));
    await emit(999, { rollback: true });

    // The relay crashes between publish and mark: simulate by re-publishing sent rows.
    await eventually(async () => {
      const { rows } = await producer.query(
        'SELECT count(*)::int AS c FROM outbox WHERE published_at IS NULL',
      );
      expect(rows[0].c).toBe(0);
    });
    await producer.query('UPDATE outbox SET published_at = NULL');
    await relay.publishBatch();

    await eventually(async () => {
      const { rows } = await consumer.query('SELECT count(*)::int AS c FROM received');
      expect(rows[0].c).toBe(20);
    });
    await new Promise((r) => setTimeout(r, 300));
    const { rows } = await consumer.query(
      'SELECT event_id, count(*)::int AS c FROM received GROUP BY event_id',
    );
    expect(rows).toHaveLength(20);
    expect(rows.every((r) => r.c === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(committed.map((e) => e!.id)));
    const nines = await consumer.query('SELECT 1 FROM received WHERE n = 999');
    expect(nines.rowCount).toBe(0);
    await relay.stop();
    await sub.stop();
  });

  it('deduplicates a re-publish beyond the JetStream window through the consumer ledger', async () => {
    const relay = new OutboxRelay({ pool: producer, js: bus.js, log });
    const evt = await emit(7);
    await relay.publishBatch();
    // Same event id, new message id: JetStream cannot dedupe it, the consumer must.
    await bus.js.publish(`hallmark.${source}.kit.probe.sent`, JSON.stringify(evt));
    const seen: string[] = [];
    const sub = await startConsumer({
      bus,
      durable: `${source}-b`,
      filter: `hallmark.${source}.>`,
      pool: consumer,
      log,
      handle: async (event) => {
        seen.push(event.id);
      },
    });
    await eventually(() => expect(seen).toContain(evt!.id));
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.filter((id) => id === evt!.id)).toHaveLength(1);
    await sub.stop();
  });

  it('retries a failing handler until it succeeds, without recording the id on failure', async () => {
    const relay = new OutboxRelay({ pool: producer, js: bus.js, log });
    let attempts = 0;
    const sub = await startConsumer({
      bus,
      durable: `${source}-c`,
      filter: `hallmark.${source}.>`,
      pool: consumer,
      log,
      handle: async (event, tx) => {
        if ((event.data as { n: number }).n !== 4242) return;
        attempts++;
        if (attempts < 3) throw new Error('transient');
        await tx.query('INSERT INTO received (event_id, n) VALUES ($1, $2)', [event.id, 4242]);
      },
    });
    await emit(4242);
    await relay.publishBatch();
    await eventually(
      async () => {
        const { rows } = await consumer.query('SELECT count(*)::int AS c FROM received WHERE n = 4242');
        expect(rows[0].c).toBe(1);
      },
      { timeoutMs: 15_000 },
    );
    expect(attempts).toBe(3);
    await sub.stop();
  });
});

describe('outboxInsert (the one outbox write, as a statement part)', () => {
  it('writes the events with their subjects only when the guarding CTE returned its row', async () => {
    const run = async (matches: boolean) => {
      const batch = outboxBatch(source, [
        { type: 'kit.probe.sent', data: { n: 1 } },
        { type: 'kit.probe.sent', data: { n: 2 } },
      ]);
      await producer.query(
        `WITH g AS (SELECT 1 AS one WHERE $2::boolean), e AS (${outboxInsert('$1', 'g')})
         SELECT (SELECT count(*) FROM e), ${OUTBOX_WAKE}`,
        [batch.param, matches],
      );
      const { rows } = await producer.query<{ subject: string; type: string; payload: EventEnvelope }>(
        'SELECT subject, type, payload FROM outbox WHERE id = ANY($1) ORDER BY seq',
        [batch.envelopes.map((e) => e.id)],
      );
      return { rows, batch };
    };
    expect((await run(false)).rows).toHaveLength(0);
    const { rows, batch } = await run(true);
    expect(rows.map((r) => r.subject)).toEqual([
      `hallmark.${source}.kit.probe.sent`,
      `hallmark.${source}.kit.probe.sent`,
    ]);
    expect(rows.map((r) => r.payload)).toEqual(batch.envelopes);
  });

  it('refuses to build an envelope whose payload does not match its type', () => {
    expect(() =>
      outboxBatch(source, [{ type: 'kit.probe.sent', data: { n: 'one' as unknown as number } }]),
    ).toThrow();
  });
});
