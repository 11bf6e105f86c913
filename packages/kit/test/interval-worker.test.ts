// A locked interval worker across lost connections (a failover ends every connection): the
// lock's connection goes back to the pool to be dropped, so the pool never fills with dead
// ones and the worker takes the lock again on a fresh connection.
import { afterAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { IntervalWorker, openDatabase, type Pool } from '../src/index.js';
import { dropDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const database = uniqueDatabaseName('kitworker');
let pool: Pool | undefined;
let worker: IntervalWorker | undefined;

afterAll(async () => {
  await worker?.stop();
  await pool?.end();
  await dropDatabase(database);
});

const lockHolder = async (p: Pool) =>
  (
    await p.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database =
         (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
  ).rows[0]?.pid;

async function until<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a locked interval worker whose connection is lost', () => {
  it('gives the dead connection back to the pool each time, so three losses on a pool of three leave it serving', async () => {
    pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database, max: 3 });
    let passes = 0;
    worker = new IntervalWorker(
      { name: 'test worker', intervalMs: 20, log: pino({ level: 'silent' }), pool, lockKey: 'kit-test-lock' },
      async () => void passes++,
    );
    await worker.start();
    for (let loss = 1; loss <= 3; loss++) {
      const pid = await until(() => lockHolder(pool!), `the lock (loss ${loss})`);
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await until(
        async () => ((await lockHolder(pool!)) !== pid ? true : undefined),
        'the lock to be let go',
      );
    }
    // Taken again on a fresh connection, the pool still has room beside it.
    await until(() => lockHolder(pool!), 'the lock after the last loss');
    expect(worker.holding).toBe(true);
    expect(pool.totalCount - pool.idleCount).toBeLessThanOrEqual(1);
    const before = passes;
    await until(async () => (passes > before ? true : undefined), 'a pass after the losses');
  }, 30_000);
});
