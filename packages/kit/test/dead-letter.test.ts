// Poison messages on the real PostgreSQL and NATS: a consumer whose handler keeps failing on
// one event gives up after max_deliver deliveries, parks the event in the dead-letter stream
// with who gave up, on what, after how many deliveries and why, and goes on with the next;
// `pnpm hallmark dlq list|replay <seq>` (scripts/dlq.ts) shows it and publishes it again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  deadLettered,
  newId,
  openDatabase,
  registry,
  startConsumer,
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
import { jetstreamManager } from '@nats-io/jetstream';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { runDlq } from '../../../scripts/dlq.js';

const log = createLogger('dlq-test', 'silent');
const database = uniqueDatabaseName('dlq');
const source = `dlq${Date.now()}`;
const durable = `${source}-poison`;
let pool: Pool;
let bus: Bus;

beforeAll(async () => {
  pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database });
  await pool.query('CREATE TABLE handled (event_id text PRIMARY KEY)');
  bus = await connectBus(TEST_NATS_URL, 'dlq-test');
});

afterAll(async () => {
  const jsm = await jetstreamManager(bus.nc);
  await jsm.consumers.delete('HALLMARK', durable).catch(() => undefined);
  await bus.close();
  await closeTestDatabase(pool, database);
});

function event(poison: boolean): EventEnvelope {
  return {
    id: newId('event'),
    type: 'kit.probe.sent',
    source,
    occurred_at: new Date().toISOString(),
    enterprise_id: null,
    livemode: true,
    request_id: null,
    data: { poison },
  } as unknown as EventEnvelope;
}

async function dlq(...args: string[]) {
  const lines: string[] = [];
  const code = await runDlq(args, {
    natsUrl: TEST_NATS_URL,
    out: (l) => lines.push(l),
    err: () => undefined,
  });
  return { code, lines };
}

describe('dead-letter stream', () => {
  it('parks a poisoned event after max_deliver deliveries with its error, and replays it with the command', async () => {
    let healed = false;
    const deliveries = new Map<string, number>();
    const sub = await startConsumer({
      bus,
      durable,
      filter: `hallmark.${source}.>`,
      pool,
      log,
      maxDeliver: 3,
      ackWaitMs: 5000,
      handle: async (e, tx) => {
        deliveries.set(e.id, (deliveries.get(e.id) ?? 0) + 1);
        if ((e.data as unknown as { poison: boolean }).poison && !healed)
          throw new Error('cannot handle this one');
        await tx.query('INSERT INTO handled (event_id) VALUES ($1)', [e.id]);
      },
    });
    // The consumer's dead-letter series is there at 0 from its start (an alert's increase()
    // sees the first parked event).
    const series = async () =>
      (await registry.getSingleMetricAsString('hallmark_events_dead_lettered_total'))
        .split('\n')
        .find((l) => l.includes(`consumer="${durable}"`));
    expect(await series()).toMatch(/ 0$/);
    try {
      const poison = event(true);
      const fine = event(false);
      const subject = `hallmark.${source}.probe.kit.probe.sent`;
      await bus.js.publish(subject, JSON.stringify(poison), { msgID: poison.id });
      await bus.js.publish(subject, JSON.stringify(fine), { msgID: fine.id });

      // The good event is not held back; the poisoned one is parked on its third delivery.
      const parked = await eventually(
        async () => {
          const { lines } = await dlq('list', '--consumer', durable, '--json');
          expect(lines).toHaveLength(1);
          return JSON.parse(lines[0]!) as Record<string, unknown>;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      expect(parked).toMatchObject({
        consumer: durable,
        subject,
        deliveries: 3,
        event_id: poison.id,
        event_type: 'kit.probe.sent',
        error: 'cannot handle this one',
      });
      expect(deliveries.get(poison.id)).toBe(3);
      expect(deadLettered.get(durable)).toBe(1);
      expect(await series()).toMatch(/ 1$/);
      const { rows } = await pool.query<{ event_id: string }>('SELECT event_id FROM handled');
      expect(rows.map((r) => r.event_id)).toEqual([fine.id]);
      // Terminated: no fourth delivery.
      await new Promise((r) => setTimeout(r, 1500));
      expect(deliveries.get(poison.id)).toBe(3);

      // The fault is fixed; the operator replays it with the CLI.
      healed = true;
      const cli = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', path.join('scripts', 'hallmark.ts'), 'dlq', 'replay', String(parked.seq)],
        {
          cwd: path.join(import.meta.dirname, '..', '..', '..'),
          env: { ...process.env, NATS_URL: TEST_NATS_URL },
        },
      );
      expect(cli.stdout).toContain(`replayed ${String(parked.seq)}: ${poison.id}`);
      await eventually(
        async () => {
          const r = await pool.query('SELECT 1 FROM handled WHERE event_id = $1', [poison.id]);
          expect(r.rowCount).toBe(1);
        },
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      expect((await dlq('list', '--consumer', durable, '--json')).lines).toEqual([]);
      // A sequence that is not parked is refused.
      expect((await dlq('replay', String(parked.seq))).code).toBe(1);
    } finally {
      await sub.stop();
    }
  }, 120_000); // three back-offs (1 s, 2 s) plus the command as a tsx subprocess
});
