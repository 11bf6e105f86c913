// Test helpers over real infrastructure: a fresh database per test file on the real
// PostgreSQL server, and the real NATS server. `pnpm test` makes sure both are up
// (starting local ones when absent) and passes their URLs in the environment. And a probe of
// cleartext HTTP/2 endpoints (Restate's).
import { connect } from 'node:http2';
import pg from 'pg';
import { randomBase62 } from './ids.js';
import { serviceDatabaseUrl } from './db.js';

export const TEST_DATABASE_SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A unique database name for one test file (dropped by `dropDatabase`). */
export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_t_${randomBase62(10).toLowerCase()}`;
}

/**
 * Ends a test pool and drops its database. `pool.end()` resolves before the server side
 * of each connection has gone, so a FORCE drop can kill one mid-close: swallow that.
 */
export async function closeTestDatabase(
  pool: { end(): Promise<void>; on(e: 'error', f: () => void): unknown },
  name: string,
) {
  pool.on('error', () => undefined);
  await pool.end();
  await dropDatabase(name);
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serviceDatabaseUrl(TEST_DATABASE_SERVER, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * The plan PostgreSQL would choose for `sql` were its tables large: sequential scans are off
 * (a test's few rows would be scanned anyway), so the plan shows whether an index serves it.
 */
export async function planAtScale(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

export async function eventually<T>(
  fn: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let lastErr: unknown;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      lastErr = err;
      if (Date.now() > deadline) throw lastErr;
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
    }
  }
}

/**
 * The status a cleartext HTTP/2 server (a Restate endpoint; fetch speaks HTTP/1.1 only)
 * answers a GET of `path` with.
 */
export async function h2Status(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const client = connect(origin);
  try {
    return await new Promise<number>((resolve, reject) => {
      const req = client.request({ ':method': 'GET', ':path': path, ...headers });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
      req.end();
    });
  } finally {
    client.close();
  }
}
