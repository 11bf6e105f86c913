import { afterAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { migrate, openDatabase, KIT_MIGRATIONS_DIR, type Pool } from '../src/index.js';
import { dropDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'migrations');
const created: string[] = [];
const pools: Pool[] = [];

async function open(database: string) {
  const pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database, migrationsDirs: [FIXTURES] });
  pools.push(pool);
  return pool;
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  for (const db of created) await dropDatabase(db);
});

describe('database per service with migrations', () => {
  it('with migrate: false (a migration job ran) creates nothing, and refuses to start while a migration is pending', async () => {
    const db = uniqueDatabaseName('kitdb');
    const quiet = {
      serverUrl: TEST_DATABASE_SERVER,
      database: db,
      migrationsDirs: [FIXTURES],
      migrate: false,
    };
    // No database: not created, the start fails.
    await expect(openDatabase(quiet)).rejects.toThrow(/does not exist/);
    created.push(db);
    // The job's work: database and the first migrations, one still pending.
    const partial = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: db, migrationsDirs: [] });
    await partial.end();
    await expect(openDatabase(quiet)).rejects.toThrow(
      /lacks migrations 0001_widgets.sql, 0002_widgets_seed.sql/,
    );
    // All applied: it opens.
    await (await open(db)).query('SELECT 1');
    const pool = await openDatabase(quiet);
    pools.push(pool);
    expect((await pool.query('SELECT n FROM widgets')).rows).toEqual([{ n: 1 }]);
  });

  it('creates the database when missing and applies kit and service migrations in order', async () => {
    const db = uniqueDatabaseName('kitdb');
    created.push(db);
    const pool = await open(db);
    const { rows } = await pool.query('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual([
      '0000_kit_outbox.sql',
      '0000_kit_retention.sql',
      '0001_widgets.sql',
      '0002_widgets_seed.sql',
    ]);
    expect((await pool.query('SELECT n FROM widgets')).rows).toEqual([{ n: 1 }]);
  });

  it('is idempotent: a second run applies nothing and duplicates no data', async () => {
    const db = uniqueDatabaseName('kitdb');
    created.push(db);
    const pool = await open(db);
    expect(await migrate(pool, [KIT_MIGRATIONS_DIR, FIXTURES])).toEqual([]);
    expect((await pool.query('SELECT count(*)::int AS c FROM widgets')).rows[0].c).toBe(1);
  });

  it('is safe when many replicas start at once: each migration applies exactly once', async () => {
    const db = uniqueDatabaseName('kitdb');
    created.push(db);
    const replicas = await Promise.all(Array.from({ length: 6 }, () => open(db)));
    const { rows } = await replicas[0]!.query('SELECT count(*)::int AS c FROM widgets');
    expect(rows[0].c).toBe(1);
    const applied = await replicas[0]!.query('SELECT count(*)::int AS c FROM schema_migrations');
    expect(applied.rows[0].c).toBe(4); // kit's two and the fixture's two
  });

  it('rolls back a failing migration whole and reports which one failed', async () => {
    const db = uniqueDatabaseName('kitdb');
    created.push(db);
    const pool = await open(db);
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const dir = await mkdtemp(path.join((await import('node:os')).tmpdir(), 'mig-'));
    await writeFile(path.join(dir, '0003_bad.sql'), 'CREATE TABLE half (id int); SELECT nope FROM nowhere;');
    await expect(migrate(pool, [KIT_MIGRATIONS_DIR, FIXTURES, dir])).rejects.toThrow(/0003_bad\.sql/);
    const { rows } = await pool.query("SELECT to_regclass('half') AS t");
    expect(rows[0].t).toBeNull();
  });
});

describe('a connection lost under a checked-out client', () => {
  it('fails the held client’s next query and never the process; the pool serves on', async () => {
    const db = uniqueDatabaseName('kitdb');
    created.push(db);
    const pool = await open(db);
    const held = await pool.connect();
    const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // As a failover does: the server ends the connection while the client is checked out (an
    // unhandled 'error' event here used to be an uncaught exception: the test would fail).
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await new Promise((r) => setTimeout(r, 300));
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });
});
