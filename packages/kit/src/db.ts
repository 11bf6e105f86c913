// PostgreSQL: one database per service (`hallmark_<svc>`), created on first start, with
// numbered SQL migrations applied under an advisory lock so that N replicas starting at
// once apply each migration exactly once.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient;

// int8 (bigint) columns come back as strings by default; every bigint we store (money in
// minor units, counters, block numbers) fits in a double's exact range.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** The service's database URL: the server URL from DATABASE_URL with its own database name. */
export function serviceDatabaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`invalid database name: ${database}`);
  const admin = new pg.Client({ connectionString: serviceDatabaseUrl(serverUrl, 'postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return;
    try {
      await admin.query(`CREATE DATABASE ${database}`);
    } catch (err) {
      // Another replica created it between our check and our create.
      if ((err as { code?: string }).code !== '42P04' && (err as { code?: string }).code !== '23505')
        throw err;
    }
  } finally {
    await admin.end();
  }
}

export interface DbOptions {
  serverUrl: string;
  database: string;
  /** Directories of numbered `.sql` files; the kit's own (outbox) is always applied first. */
  migrationsDirs?: string[];
  max?: number;
  /**
   * false: the database and its migrations are someone else's job (a pre-install/pre-upgrade
   * hook Job, `scripts/migrate.ts`), so the runtime role needs no CREATE DATABASE or DDL:
   * the database is only opened, and a pending migration stops the start. Default true.
   */
  migrate?: boolean;
}

/** Creates the database if missing, applies migrations, and returns a pool. */
export async function openDatabase(opts: DbOptions): Promise<Pool> {
  const migrating = opts.migrate ?? true;
  if (migrating) await ensureDatabase(opts.serverUrl, opts.database);
  const pool = new pg.Pool({
    connectionString: serviceDatabaseUrl(opts.serverUrl, opts.database),
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    // After a failover the old primary's connections are gone without a FIN (a lost machine)
    // or shut by HAProxy: keepalive finds the silent ones, and a connect that cannot complete
    // (no primary while Patroni promotes) fails within 30 s instead of wedging the caller (long enough that a busy pool's queue is not mistaken for it).
    keepAlive: true,
    connectionTimeoutMillis: 30_000,
  });
  // An idle client dropped by the server (a restart, a FORCE drop) must not crash the
  // process: pg removes it from the pool, the next query opens a fresh one.
  pool.on('error', () => undefined);
  // A checked-out client has no 'error' listener of the pool's, so a connection lost while one
  // is held (a failover in the middle of a transaction, a held advisory lock, LISTEN) emitted an
  // unhandled 'error' and stopped the process: seven processes of a clustered chaos run exited
  // on one primary switch. Its query fails instead (the caller sees that), and once released the
  // broken client is dropped by the pool.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const dirs = [KIT_MIGRATIONS_DIR, ...(opts.migrationsDirs ?? [])];
  if (migrating) {
    await migrate(pool, dirs);
  } else {
    const pending = await pendingMigrations(pool, dirs).catch(async (err: unknown) => {
      await pool.end();
      throw err;
    });
    if (pending.length) {
      await pool.end();
      throw new Error(
        `database ${opts.database} lacks migrations ${pending.join(', ')}: run the migration job (scripts/migrate.ts)`,
      );
    }
  }
  return pool;
}

const MIGRATION_LOCK = 0x4841_4c4d; // "HALM"

async function listMigrations(dirs: string[]): Promise<{ name: string; file: string }[]> {
  const all: { name: string; file: string }[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue; // a service with no tables of its own yet
    for (const name of await readdir(dir)) {
      if (/^\d{4}_.+\.sql$/.test(name)) all.push({ name, file: path.join(dir, name) });
    }
  }
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

/** Migration files not yet recorded in schema_migrations. */
export async function pendingMigrations(pool: Pool, dirs: string[]): Promise<string[]> {
  const files = await listMigrations(dirs);
  const { rows } = await pool
    .query<{ name: string }>('SELECT name FROM schema_migrations')
    .catch((err: { code?: string }) => {
      if (err.code === '42P01') return { rows: [] as { name: string }[] }; // no table yet
      throw err;
    });
  const done = new Set(rows.map((r) => r.name));
  return files.map((f) => f.name).filter((n) => !done.has(n));
}

export async function migrate(pool: Pool, dirs: string[]): Promise<string[]> {
  const files = await listMigrations(dirs);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    for (const { name, file } of files) {
      if (done.has(name)) continue;
      const sql = await readFile(file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
        await client.query('COMMIT');
        applied.push(name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** Runs `fn` in a transaction; rolls back on any throw. */
export async function transaction<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The kit's own tables (outbox, processed events) every service migrates in. */
export const KIT_MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
