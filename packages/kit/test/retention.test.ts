// Retention of the outbox and processed_events on the real PostgreSQL: old published rows
// and ids whose event can no longer come back go; an unpublished row (the relay still owes
// it) and a recent id stay, however old.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { openDatabase, processedKeepMs, pruneOnce, type Pool } from '../src/index.js';
import { dropDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '../src/testing.js';

const database = uniqueDatabaseName('kitret');
let pool: Pool;
const HOUR = 3600_000;
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

  expect(await pruneOnce(pool, settings)).toEqual({ outbox: 1, processedEvents: 1 });
  const outbox = await pool.query<{ id: string }>('SELECT id FROM outbox ORDER BY id');
  expect(outbox.rows.map((r) => r.id)).toEqual(['evt_new_sent', 'evt_old_unsent']);
  const processed = await pool.query<{ event_id: string }>(
    'SELECT event_id FROM processed_events ORDER BY 1',
  );
  expect(processed.rows.map((r) => r.event_id)).toEqual(['evt_b', 'evt_c']);
  // A second pass finds nothing more.
  expect(await pruneOnce(pool, settings)).toEqual({ outbox: 0, processedEvents: 0 });
});
