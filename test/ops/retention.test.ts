// Data lifecycle (kit retention.ts) on the services' real schemas: what each service declares
// deletes rows older than their retention, in bounded batches, and keeps younger rows and the
// rows still needed — an undelivered webhook, a message still being sent, an unfinished bulk
// job's items — however old.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, pruneOnce, retentionsFrom, sweep, type Pool, type RetentionRule } from '@hallmark/kit';
import { dropDatabase, TEST_DATABASE_SERVER } from '@hallmark/kit/testing';
import path from 'node:path';
import { JOB_ROWS_RETENTION } from '../../services/bulk/src/export-store.js';
import { USAGE_RETENTION } from '../../services/keys/src/usage-store.js';
import { MESSAGE_RETENTION } from '../../services/notify/src/messaging/index.js';
import { WEBHOOKS_RETENTION } from '../../services/notify/src/webhooks/index.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const prefix = `ret${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
const pools: Record<string, Pool> = {};

const open = async (service: string) =>
  (pools[service] = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database: `${prefix}_${service}`,
    migrationsDirs: [path.join(REPO, 'services', service, 'migrations')],
  }));

afterAll(async () => {
  for (const [service, pool] of Object.entries(pools)) {
    await pool.end();
    await dropDatabase(`${prefix}_${service}`);
  }
});

const column = async (pool: Pool, sql: string) => (await pool.query<{ v: string }>(sql)).rows.map((r) => r.v);
const days = (rules: RetentionRule[]) => retentionsFrom(rules, {});

describe('notify', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = await open('notify');
    await pool.query(`INSERT INTO webhook_endpoints (id, enterprise_id, livemode, url, events, secret_enc)
      VALUES ('we_1', 'ent_1', true, 'https://example.com/hook', '{certificate.minted}', 'x')`);
    // [id, age in days, status]: finished old ones go, a pending one stays however old.
    for (const [id, age, status] of [
      ['wd_old_ok', 31, 'succeeded'],
      ['wd_old_failed', 40, 'failed'],
      ['wd_old_pending', 45, 'pending'],
      ['wd_young', 29, 'succeeded'],
    ] as const) {
      await pool.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, enterprise_id, livemode, event_id, event_type, body,
           status, max_attempts, next_attempt_at, created_at)
         VALUES ($1, 'we_1', 'ent_1', true, $1, 'certificate.minted', '{}', $3, 8,
           CASE WHEN $3 = 'pending' THEN now() END, now() - make_interval(days => $2))`,
        [id, age, status],
      );
      await pool.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code)
         SELECT $1, n, now() - make_interval(days => $2), 500 FROM generate_series(1, 3) n`,
        [id, age],
      );
    }
    for (const [id, age, status] of [
      ['msg_old_sent', 31, 'sent'],
      ['msg_old_failed', 60, 'failed'],
      ['msg_old_sending', 60, 'sending'],
      ['msg_young', 1, 'sent'],
    ] as const)
      await pool.query(
        `INSERT INTO messages (id, enterprise_id, livemode, idempotency_key, request_hash, channel,
           recipient_encrypted, recipient_hash, status, created_at)
         VALUES ($1, 'ent_1', true, $1, 'h', 'email', 'x', 'h', $3, now() - make_interval(days => $2))`,
        [id, age, status],
      );
  });

  it('deletes finished webhook deliveries and their attempts after 30 days, in batches; keeps pending and younger ones', async () => {
    const [attempts, deliveries] = days(WEBHOOKS_RETENTION);
    // Six attempts of the two old finished deliveries, four a statement.
    expect(await sweep(pool, attempts!, 4)).toEqual({ deleted: 6, batches: 2 });
    expect(await sweep(pool, deliveries!, 4)).toEqual({ deleted: 2, batches: 1 });
    expect(await column(pool, 'SELECT id AS v FROM webhook_deliveries ORDER BY 1')).toEqual([
      'wd_old_pending',
      'wd_young',
    ]);
    expect(await column(pool, 'SELECT DISTINCT delivery_id AS v FROM webhook_attempts ORDER BY 1')).toEqual([
      'wd_old_pending',
      'wd_young',
    ]);
  });

  it('deletes sent and failed messages after 30 days; keeps one still sending', async () => {
    expect(await pruneOnce(pool, days([MESSAGE_RETENTION]), 1)).toEqual({ messages: 2 });
    expect(await column(pool, 'SELECT id AS v FROM messages ORDER BY 1')).toEqual([
      'msg_old_sending',
      'msg_young',
    ]);
  });

  it('deletes listen sessions a week after they ended; an open one stays', async () => {
    await pool.query(`INSERT INTO listen_sessions (id, enterprise_id, livemode, events, secret_enc, created_at, ended_at)
      VALUES ('lsn_ended', 'ent_1', true, '{}', 'x', now() - interval '9 days', now() - interval '8 days'),
             ('lsn_recent', 'ent_1', true, '{}', 'x', now() - interval '9 days', now() - interval '1 day'),
             ('lsn_open', 'ent_1', true, '{}', 'x', now() - interval '90 days', NULL)`);
    expect((await pruneOnce(pool, days(WEBHOOKS_RETENTION))).listen_sessions).toBe(1);
    expect(await column(pool, 'SELECT id AS v FROM listen_sessions ORDER BY 1')).toEqual([
      'lsn_open',
      'lsn_recent',
    ]);
  });
});

describe('bulk', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = await open('bulk');
    // [id, status, finished days ago]
    for (const [id, status, age] of [
      ['job_done_old', 'completed', 91],
      ['job_failed_old', 'failed', 100],
      ['job_done_young', 'completed', 89],
      ['job_running', 'processing', null],
      ['job_queued_old', 'queued', null],
    ] as const) {
      await pool.query(
        `INSERT INTO jobs (id, enterprise_id, livemode, actor_id, actor_type, form, status, total_count, created_at, completed_at)
         VALUES ($1, 'ent_1', true, 'usr_1', 'user', 'csv', $2, 3, now() - interval '200 days',
           now() - make_interval(days => $3))`,
        [id, status, age],
      );
      await pool.query(
        `INSERT INTO job_items (job_id, idx, row_number, input) SELECT $1, n, n + 1, '{}' FROM generate_series(0, 2) n`,
        [id],
      );
      await pool.query(`INSERT INTO job_image_urls (job_id, url) VALUES ($1, 'https://example.com/a.png')`, [
        id,
      ]);
    }
  });

  it("deletes a finished job's items 90 days after it finished, in batches; keeps an unfinished job's items and the job", async () => {
    const [items] = days(JOB_ROWS_RETENTION);
    expect(await sweep(pool, items!, 4)).toEqual({ deleted: 6, batches: 2 });
    expect((await pruneOnce(pool, days(JOB_ROWS_RETENTION))).job_image_urls).toBe(2);
    const left = ['job_done_young', 'job_queued_old', 'job_running'];
    expect(await column(pool, 'SELECT DISTINCT job_id AS v FROM job_items ORDER BY 1')).toEqual(left);
    expect(await column(pool, 'SELECT job_id AS v FROM job_image_urls ORDER BY 1')).toEqual(left);
    expect(await column(pool, 'SELECT count(*)::text AS v FROM jobs')).toEqual(['5']);
  });
});

describe('keys', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = await open('keys');
    await pool.query(`INSERT INTO audit_logs (key_id, enterprise_id, action, created_at)
      SELECT 'key_1', 'ent_1', 'key.used', now() - make_interval(days => d) FROM unnest(ARRAY[366, 400, 364]) d`);
    await pool.query(`INSERT INTO usage_batches (batch_id, accepted, received_at)
      VALUES ('b_old', 1, now() - interval '8 days'), ('b_new', 1, now() - interval '6 days')`);
  });

  it('deletes audit entries after a year and usage receipts after a week; keeps younger ones', async () => {
    expect(await pruneOnce(pool, days(USAGE_RETENTION), 1)).toEqual({
      usage_batches: 1,
      key_usage_hourly: 0,
      audit_logs: 2,
    });
    expect(await column(pool, 'SELECT batch_id AS v FROM usage_batches')).toEqual(['b_new']);
    expect(
      await column(pool, "SELECT (now() - created_at < interval '365 days')::text AS v FROM audit_logs"),
    ).toEqual(['true']);
  });
});
