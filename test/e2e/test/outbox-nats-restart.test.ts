// The outbox guarantee across a NATS restart: events committed while NATS is down are
// published once it is back, and a durable consumer handles each event id exactly once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureNats, freePort, type NatsHandle } from '@hallmark/devstack';
import {
  connectBus,
  createLogger,
  openDatabase,
  OutboxRelay,
  recordEvent,
  startConsumer,
  transaction,
  type Bus,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const log = createLogger('nats-restart-test', 'silent');
const dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-nats-'));
const producerDb = uniqueDatabaseName('natsrp');
const consumerDb = uniqueDatabaseName('natsrc');
let port: number;
let nats: NatsHandle;
let producer: Pool;
let consumer: Pool;
let bus: Bus;

const startNats = () =>
  ensureNats({ dataDir, forceSpawn: true, port, logFile: path.join(dataDir, 'nats.log') });

beforeAll(async () => {
  port = await freePort();
  nats = await startNats();
  producer = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: producerDb });
  consumer = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: consumerDb });
  await consumer.query('CREATE TABLE received (event_id text NOT NULL, n int NOT NULL)');
  bus = await connectBus(nats.url, 'nats-restart-test');
}, 60_000);

afterAll(async () => {
  await bus?.close().catch(() => undefined);
  await nats?.stop();
  await closeTestDatabase(producer, producerDb);
  await closeTestDatabase(consumer, consumerDb);
  rmSync(dataDir, { recursive: true, force: true });
});

async function emit(n: number) {
  return transaction(producer, (tx) =>
    recordEvent(tx, 'natsrestart', { type: 'kit.probe.sent', data: { n } }),
  );
}

describe('outbox across a NATS restart', () => {
  it('publishes events committed while NATS was down, each handled exactly once', async () => {
    const relay = new OutboxRelay({ pool: producer, js: bus.js, log, pollIntervalMs: 100 });
    const sub = await startConsumer({
      bus,
      durable: 'natsrestart-consumer',
      filter: 'hallmark.natsrestart.>',
      pool: consumer,
      log,
      handle: async (event, tx) => {
        await tx.query('INSERT INTO received (event_id, n) VALUES ($1, $2)', [
          event.id,
          (event.data as { n: number }).n,
        ]);
      },
    });
    await relay.start();
    for (let i = 0; i < 10; i++) await emit(i);
    await eventually(async () => {
      const { rows } = await consumer.query('SELECT count(*)::int AS c FROM received');
      expect(rows[0].c).toBe(10);
    });

    await nats.stop();
    // State changes keep committing while the bus is down; their events wait in the outbox.
    for (let i = 10; i < 30; i++) await emit(i);
    const pending = await producer.query('SELECT count(*)::int AS c FROM outbox WHERE published_at IS NULL');
    expect(pending.rows[0].c).toBeGreaterThan(0);

    nats = await startNats();
    await eventually(
      async () => {
        const { rows } = await consumer.query('SELECT count(*)::int AS c FROM received');
        expect(rows[0].c).toBe(30);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    await new Promise((r) => setTimeout(r, 500));
    const { rows } = await consumer.query(
      'SELECT event_id, count(*)::int AS c FROM received GROUP BY event_id',
    );
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.c === 1)).toBe(true);
    const left = await producer.query('SELECT count(*)::int AS c FROM outbox WHERE published_at IS NULL');
    expect(left.rows[0].c).toBe(0);
    await relay.stop();
    await sub.stop();
  }, 90_000);
});
