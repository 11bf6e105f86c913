import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  ensurePostgres,
  freePort,
  postgresAnswers,
  SYSTEM_POSTGRES_URL,
  type PostgresHandle,
} from '../src/index.js';
import { tempDataDir } from './helpers.js';

const tmp = tempDataDir('pg');
const handles: PostgresHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  tmp.cleanup();
});

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('ensurePostgres', () => {
  it('runs an embedded server on a fresh data dir that answers queries, and keeps its data across a restart', async () => {
    const port = await freePort();
    const first = await ensurePostgres({
      dataDir: tmp.dir,
      forceEmbedded: true,
      port,
      logFile: tmp.log('postgres'),
    });
    handles.push(first);
    expect(first.embedded).toBe(true);
    expect(first.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
    const [version] = await query<{ server_version: string }>(first.url, 'SHOW server_version');
    expect(version?.server_version).toMatch(/^18\./);
    await query(first.url, 'CREATE TABLE survives (v text)');
    await query(first.url, 'INSERT INTO survives VALUES ($1)', ['still here']);
    await first.stop();
    expect(await postgresAnswers(first.url, 500)).toBe(false);

    const second = await ensurePostgres({
      dataDir: tmp.dir,
      forceEmbedded: true,
      port,
      logFile: tmp.log('postgres'),
    });
    handles.push(second);
    expect(await query<{ v: string }>(second.url, 'SELECT v FROM survives')).toEqual([{ v: 'still here' }]);
    await second.stop();
  });

  it('uses the system server when one answers, and stop() leaves it running', async () => {
    if (!(await postgresAnswers(SYSTEM_POSTGRES_URL))) return; // nothing to reuse on this machine
    const h = await ensurePostgres({ dataDir: tmp.dir });
    expect(h).toMatchObject({ url: SYSTEM_POSTGRES_URL, embedded: false });
    await h.stop();
    expect(await postgresAnswers(SYSTEM_POSTGRES_URL)).toBe(true);
  });

  it('refuses a DATABASE_URL that does not answer instead of silently starting another server', async () => {
    const port = await freePort();
    await expect(
      ensurePostgres({ dataDir: tmp.dir, url: `postgres://u:secret@127.0.0.1:${port}/x`, urlWaitMs: 1000 }),
    ).rejects.toThrow(/DATABASE_URL \(postgres:\/\/u:\*\*\*@/);
  });
});
