import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createLogger, openDatabase, PgListener, serviceDatabaseUrl, type Pool } from '../src/index.js';
import { dropDatabase, eventually, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const log = createLogger('kit-test', 'silent');
const db = uniqueDatabaseName('kitlisten');
const channel = `${db}_wake`;
/** Names the listener's connections in pg_stat_activity. */
const APP = 'kit-listener-test';
let pool: Pool;
let admin: pg.Client;
const listenerPools: pg.Pool[] = [];

beforeAll(async () => {
  pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: db });
  admin = new pg.Client({ connectionString: serviceDatabaseUrl(TEST_DATABASE_SERVER, 'postgres') });
  await admin.connect();
});

afterAll(async () => {
  await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
  await admin.end();
  for (const p of listenerPools) await p.end();
  await pool.end();
  await dropDatabase(db);
});

/** A pool of the listener's own, so its connection is the one named APP. */
function listenerPool(): pg.Pool {
  const p = new pg.Pool({
    connectionString: serviceDatabaseUrl(TEST_DATABASE_SERVER, db),
    application_name: APP,
  });
  listenerPools.push(p);
  return p;
}

/** A listener on its own pool, and what it was told (a payload, or undefined for a wake-up). */
function newListener() {
  const got: (string | undefined)[] = [];
  const listener = new PgListener({
    pool: listenerPool(),
    channel,
    log,
    onNotify: (p) => got.push(p),
    retryMs: 20,
  });
  return { listener, got };
}

const listenerPids = async () =>
  (
    await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
      [db, APP],
    )
  ).rows.map((r) => r.pid);

const notify = (payload: string) => pool.query('SELECT pg_notify($1, $2)', [channel, payload]);

describe('PgListener', () => {
  it('keeps delivering notifications after its connection is killed with pg_terminate_backend, and wakes its caller once it is back', async () => {
    const { listener, got } = newListener();
    await listener.start();
    await notify('before');
    await eventually(() => expect(got).toEqual(['before']));

    const [first] = await listenerPids();
    expect(first).toBeDefined();
    const killed = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [first]);
    expect(killed.rows[0]!.ok).toBe(true);

    // A new connection LISTENs; the caller is woken once (no payload) for what it missed.
    await eventually(async () => {
      expect(listener.listening).toBe(true);
      const pids = await listenerPids();
      expect(pids).toHaveLength(1);
      expect(pids[0]).not.toBe(first);
      expect(got).toEqual(['before', undefined]);
    });
    await notify('after');
    await eventually(() => expect(got).toEqual(['before', undefined, 'after']));

    await listener.stop();
    expect(listener.listening).toBe(false);
  });

  it('starts while the database refuses connections, without throwing, and listens once it can', async () => {
    await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
    const { listener, got } = newListener();
    try {
      await listener.start();
      expect(listener.listening).toBe(false);
    } finally {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
    }
    await eventually(() => {
      expect(listener.listening).toBe(true);
      expect(got).toEqual([undefined]);
    });
    await notify('hello');
    await eventually(() => expect(got).toEqual([undefined, 'hello']));
    await listener.stop();
  });

  it('refuses a channel that is not a plain SQL identifier', () => {
    expect(
      () => new PgListener({ pool, channel: 'x; DROP TABLE outbox', log, onNotify: () => undefined }),
    ).toThrow(/invalid LISTEN channel/);
  });
});
