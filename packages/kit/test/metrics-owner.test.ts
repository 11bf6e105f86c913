// Series that must not be counted twice or appear late: a shared gauge (a row count, the same
// from every replica) is reported by exactly one replica of a service, the holder of its
// database's metrics lock, and another takes over when it goes; a counter's known label sets
// are series at 0 from its creation, so a first event is an increase.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  counter,
  createLogger,
  gaugeFrom,
  metricsLockOf,
  openDatabase,
  registry,
  reportSharedWhile,
  type Pool,
} from '../src/index.js';
import { dropDatabase, eventually, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const database = uniqueDatabaseName('kitmet');
const log = createLogger('kit-test', 'silent');
// Two replicas of one service: a pool each on the one database.
let a: Pool;
let b: Pool;

beforeAll(async () => {
  a = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database });
  b = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database });
});

afterAll(async () => {
  reportSharedWhile(() => true);
  await a.end();
  await b.end();
  await dropDatabase(database);
});

const exposition = () => registry.metrics();

describe('shared gauges', () => {
  it('exactly one replica holds the metrics lock; when it stops, another takes it', async () => {
    const lockA = metricsLockOf(a, log, 50);
    const lockB = metricsLockOf(b, log, 50);
    await lockA.start();
    await eventually(async () => expect(lockA.holding).toBe(true));
    // The lock is A's: another session of the database cannot take it.
    const { rows } = await b.query<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
      ['hallmark-metrics'],
    );
    expect(rows[0]!.ok).toBe(false);
    await lockB.start(); // B tries every 50 ms
    expect([lockA.holding, lockB.holding]).toEqual([true, false]);
    await lockA.stop();
    await eventually(async () => expect(lockB.holding).toBe(true));
    expect(lockA.holding).toBe(false);
    await lockB.stop();
  });

  it('are exported only while this process holds the lock, their series gone otherwise', async () => {
    let holding = false;
    reportSharedWhile(() => holding);
    gaugeFrom('hallmark_test_shared_rows', 'rows', [], async () => [{ labels: {}, value: 5 }], {
      shared: true,
    });
    gaugeFrom(
      'hallmark_test_shared_by_state',
      'rows by state',
      ['state'],
      async () => [{ labels: { state: 'due' }, value: 2 }],
      { shared: true },
    );
    gaugeFrom('hallmark_test_own', 'per process', [], async () => [{ labels: {}, value: 1 }]);
    let text = await exposition();
    expect(text).not.toMatch(/^hallmark_test_shared_rows /m);
    expect(text).not.toMatch(/^hallmark_test_shared_by_state\{/m);
    expect(text).toMatch(/^hallmark_test_own 1$/m);
    holding = true;
    text = await exposition();
    expect(text).toMatch(/^hallmark_test_shared_rows 5$/m);
    expect(text).toMatch(/^hallmark_test_shared_by_state\{state="due"\} 2$/m);
    holding = false;
    text = await exposition();
    expect(text).not.toMatch(/^hallmark_test_shared_rows /m);
    expect(text).not.toMatch(/^hallmark_test_shared_by_state\{/m);
  });
});

describe('counters of known label sets', () => {
  it('list every known series at 0 from creation, before any event', async () => {
    counter('hallmark_test_outcomes_total', 'outcomes', ['outcome'], {
      known: [{ outcome: 'ok' }, { outcome: 'failed' }],
    });
    const text = await exposition();
    expect(text).toMatch(/^hallmark_test_outcomes_total\{outcome="ok"\} 0$/m);
    expect(text).toMatch(/^hallmark_test_outcomes_total\{outcome="failed"\} 0$/m);
    counter('hallmark_test_outcomes_total', 'outcomes', ['outcome']).inc({ outcome: 'failed' });
    expect(await exposition()).toMatch(/^hallmark_test_outcomes_total\{outcome="failed"\} 1$/m);
  });
});
