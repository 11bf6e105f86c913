// Retention on the real PostgreSQL: the kit's outbox and processed_events (old published rows
// and ids whose event can no longer come back go; an unpublished row, the relay still owes it,
// and a recent id stay, however old), and any table a service declares, swept in bounded
// batches, with rows still needed kept, and every retention settable by its variable.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  batchStatement,
  kitRetentions,
  openDatabase,
  processedKeepMs,
  pruneOnce,
  retentionEnv,
  retentionsFrom,
  sweep,
  type Pool,
  type RetentionRule,
} from '../src/index.js';
import { dropDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const database = uniqueDatabaseName('kitret');
let pool: Pool;
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const settings = { outboxMs: 168 * HOUR, streamMaxAgeMs: 168 * HOUR, dlqMaxAgeMs: 720 * HOUR };

beforeAll(async () => {
  pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database });
});

afterAll(async () => {
  await pool.end();
  await dropDatabase(database);
});

/** An outbox row written `ageH` hours ago, published or not. */
async function outboxRow(id: string, ageH: number, published: boolean) {
  await pool.query(
    `INSERT INTO outbox (id, subject, type, payload, created_at, published_at)
     VALUES ($1, 'hallmark.kit.kit.probe.sent', 'kit.probe.sent', '{}', now() - make_interval(hours => $2),
       CASE WHEN $3 THEN now() - make_interval(hours => $2) END)`,
    [id, ageH, published],
  );
}

const ids = async (sql: string) => (await pool.query<{ id: string }>(sql)).rows.map((r) => r.id);

it('deletes published outbox rows past retention and processed ids past both streams; keeps unpublished and recent ones', async () => {
  await outboxRow('evt_old_sent', 200, true);
  await outboxRow('evt_old_unsent', 200, false);
  await outboxRow('evt_new_sent', 100, true);
  // Processed ids are kept while the dead-letter stream (the longer: 30 days) could replay
  // them, plus a day.
  expect(processedKeepMs(settings)).toBe(744 * HOUR);
  for (const [id, ageH] of [
    ['evt_a', 745],
    ['evt_b', 743],
    ['evt_c', 200],
  ] as const)
    await pool.query(
      `INSERT INTO processed_events (consumer, event_id, processed_at)
       VALUES ('c', $1, now() - make_interval(hours => $2))`,
      [id, ageH],
    );

  expect(await pruneOnce(pool, kitRetentions(settings))).toEqual({ outbox: 1, processed_events: 1 });
  expect(await ids('SELECT id FROM outbox ORDER BY id')).toEqual(['evt_new_sent', 'evt_old_unsent']);
  expect(await ids('SELECT event_id AS id FROM processed_events ORDER BY 1')).toEqual(['evt_b', 'evt_c']);
  // A second pass finds nothing more.
  expect(await pruneOnce(pool, kitRetentions(settings))).toEqual({ outbox: 0, processed_events: 0 });
});

describe("a service's tables", () => {
  // A parent with a finish time, and its rows that go with it (like a bulk job's items).
  const parents: RetentionRule = {
    table: 'probe_jobs',
    key: 'id',
    ageColumn: 'done_at',
    onlyIf: 'done',
    defaultDays: 30,
  };
  const children: RetentionRule = {
    table: 'probe_items',
    key: '(job_id, n)',
    parent: { table: 'probe_jobs', key: 'id', ref: 'job_id' },
    ageColumn: 'done_at',
    onlyIf: 'done',
    defaultDays: 30,
  };

  beforeAll(async () => {
    await pool.query(
      `CREATE TABLE probe_jobs (id text PRIMARY KEY, done boolean NOT NULL, done_at timestamptz)`,
    );
    await pool.query(
      `CREATE TABLE probe_items (job_id text REFERENCES probe_jobs (id), n int, PRIMARY KEY (job_id, n))`,
    );
    // old and done; old and still running; young and done; never finished.
    await pool.query(`INSERT INTO probe_jobs VALUES
      ('old_done', true, now() - interval '31 days'), ('old_running', false, now() - interval '40 days'),
      ('young_done', true, now() - interval '29 days'), ('open', false, NULL)`);
    await pool.query(`INSERT INTO probe_items SELECT id, n FROM probe_jobs, generate_series(1, 5) n`);
  });

  it('deletes the rows of old finished parents in batches of the bound, keeping young and unfinished ones', async () => {
    const [items] = retentionsFrom([children], {});
    // Five rows to go, two a statement: three statements, the last one short.
    expect(await sweep(pool, items!, 2)).toEqual({ deleted: 5, batches: 3 });
    expect(await ids(`SELECT DISTINCT job_id AS id FROM probe_items ORDER BY 1`)).toEqual([
      'old_running',
      'open',
      'young_done',
    ]);
    // The parent rule itself: only the old finished job goes.
    const [jobs] = retentionsFrom([parents], {});
    expect(await sweep(pool, jobs!, 2)).toEqual({ deleted: 1, batches: 1 });
    expect(await ids(`SELECT id FROM probe_jobs ORDER BY 1`)).toEqual(['old_running', 'open', 'young_done']);
  });

  it('takes each retention from HALLMARK_RETENTION_<TABLE>_DAYS, refusing a value that is not whole days', () => {
    expect(retentionEnv(children)).toBe('HALLMARK_RETENTION_PROBE_ITEMS_DAYS');
    expect(retentionsFrom([children], {})[0]!.keepMs).toBe(30 * DAY);
    expect(retentionsFrom([children], { HALLMARK_RETENTION_PROBE_ITEMS_DAYS: '7' })[0]!.keepMs).toBe(7 * DAY);
    for (const bad of ['0', '1.5', 'forever'])
      expect(() => retentionsFrom([children], { HALLMARK_RETENTION_PROBE_ITEMS_DAYS: bad })).toThrow(
        /HALLMARK_RETENTION_PROBE_ITEMS_DAYS/,
      );
  });

  it('a shorter retention reaches younger rows; a row never finished is never old', async () => {
    const [items] = retentionsFrom([children], { HALLMARK_RETENTION_PROBE_ITEMS_DAYS: '1' });
    expect((await sweep(pool, items!)).deleted).toBe(5);
    expect(await ids(`SELECT DISTINCT job_id AS id FROM probe_items ORDER BY 1`)).toEqual([
      'old_running',
      'open',
    ]);
    expect(batchStatement(children)).toMatch(/LIMIT \$2 FOR UPDATE SKIP LOCKED/);
  });
});
