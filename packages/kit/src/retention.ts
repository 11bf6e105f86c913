// Retention: every table that grows with traffic is swept by age, one loop for all of them.
// Each service declares its tables (a `RetentionRule` in one of its store files: the SQL stays
// in stores) with the column that ages a row, what a row must be to go (never one still
// needed: an undelivered webhook, an unfinished job's items) and a default; an operator moves
// each by its environment variable (HALLMARK_RETENTION_<TABLE>_DAYS). The kit adds its own
// bookkeeping tables. Each replica sweeps at start and hourly, in bounded batches with
// SKIP LOCKED, so replicas never wait on each other and a large backlog never holds locks
// for long:
//  - published outbox rows written more than HALLMARK_OUTBOX_RETENTION_HOURS ago (default 7
//    days: what was sent, for an operator looking back). An unpublished row is never touched:
//    the relay still owes it to NATS;
//  - processed event ids once their event can no longer arrive again: older than the
//    HALLMARK stream's max age and the dead-letter stream's (a replay from it), whichever
//    is longer, plus a day. Until then a redelivery still finds its id and stays a no-op.
import { z } from 'zod';
import { loadConfig } from './config.js';
import type { Pool } from './db.js';
import { IntervalWorker } from './interval-worker.js';
import type { Logger } from './log.js';
import { counter } from './metrics.js';

const DAY_MS = 24 * 3600_000;
/** Rows per DELETE: short statements, so a large backlog never holds locks for long. */
export const RETENTION_BATCH = 5000;

/** One table swept by age. Written in a service's store file: its fragments are SQL. */
export interface RetentionRule {
  /** The table rows are deleted from; also the `table` label of the pruned-rows counter. */
  table: string;
  /** The timestamp column whose age decides (NULL: never old). On `parent` when given. */
  ageColumn: string;
  /** What else a row must meet to go (SQL, on `parent` when given): rows still needed fail it. */
  onlyIf?: string;
  /**
   * The row goes with its parent's age: `{ table: 'jobs', key: 'id', ref: 'job_id' }` sweeps
   * the rows whose `ref` names a parent row that is old (and meets `onlyIf`).
   */
  parent?: { table: string; key: string; ref: string };
  /** A column (or row value) that names one row; default ctid. */
  key?: string;
  /** Days a row is kept unless HALLMARK_RETENTION_<TABLE>_DAYS says otherwise. */
  defaultDays: number;
}

/** The environment variable of a rule's retention in days. */
export const retentionEnv = (rule: Pick<RetentionRule, 'table'>): string =>
  `HALLMARK_RETENTION_${rule.table.toUpperCase()}_DAYS`;

/** A rule with its retention settled (milliseconds). */
export interface Retention {
  rule: RetentionRule;
  keepMs: number;
}

/** The rules' retentions from the environment (whole days ≥ 1, else the default); refuses bad values. */
export function retentionsFrom(rules: RetentionRule[], env: NodeJS.ProcessEnv = process.env): Retention[] {
  const schema = z.object(
    Object.fromEntries(
      rules.map((r) => [retentionEnv(r), z.coerce.number().int().min(1).default(r.defaultDays)]),
    ),
  );
  const days = loadConfig(schema, env) as Record<string, number>;
  return rules.map((rule) => ({ rule, keepMs: days[retentionEnv(rule)]! * DAY_MS }));
}

export interface KitRetentionSettings {
  /** How long a published outbox row is kept. */
  outboxMs: number;
  /** The HALLMARK stream's max age and the dead-letter stream's (busSettings). */
  streamMaxAgeMs: number;
  dlqMaxAgeMs: number;
}

/** How long a processed event id must be kept: while its event can still be delivered again. */
export const processedKeepMs = (s: KitRetentionSettings): number =>
  Math.max(s.streamMaxAgeMs, s.dlqMaxAgeMs) + DAY_MS;

/**
 * The kit's own tables, in every service database. Their retentions follow the settings above
 * (HALLMARK_OUTBOX_RETENTION_HOURS, the streams' ages), not HALLMARK_RETENTION_<TABLE>_DAYS:
 * `defaultDays` is only the rule's shape here.
 */
export function kitRetentions(s: KitRetentionSettings): Retention[] {
  return [
    {
      rule: {
        table: 'outbox',
        key: 'seq',
        ageColumn: 'created_at',
        onlyIf: 'published_at IS NOT NULL',
        defaultDays: 7,
      },
      keepMs: s.outboxMs,
    },
    {
      rule: { table: 'processed_events', ageColumn: 'processed_at', defaultDays: 31 },
      keepMs: processedKeepMs(s),
    },
  ];
}

const pruned = () =>
  counter('hallmark_retention_pruned_rows_total', 'Rows deleted by retention, by table', ['table']);

/** The DELETE of one batch: $1 the retention in seconds, $2 the batch size. */
export function batchStatement(rule: RetentionRule): string {
  const key = rule.key ?? 'ctid';
  // A row value `(a, b)` compares with a subquery selecting `a, b`.
  const columns = key.replace(/^\((.*)\)$/, '$1');
  const old = `${rule.ageColumn} < now() - make_interval(secs => $1)${rule.onlyIf ? ` AND (${rule.onlyIf})` : ''}`;
  const where = rule.parent
    ? `${rule.parent.ref} IN (SELECT ${rule.parent.key} FROM ${rule.parent.table} WHERE ${old})`
    : old;
  return `DELETE FROM ${rule.table} WHERE ${key} IN (
    SELECT ${columns} FROM ${rule.table} WHERE ${where} LIMIT $2 FOR UPDATE SKIP LOCKED)`;
}

/** Deletes a rule's old rows, `batch` at a time until a batch comes back short. */
export async function sweep(
  pool: Pool,
  { rule, keepMs }: Retention,
  batch = RETENTION_BATCH,
): Promise<{ deleted: number; batches: number }> {
  const sql = batchStatement(rule);
  let deleted = 0;
  for (let batches = 1; ; batches++) {
    const n = (await pool.query(sql, [keepMs / 1000, batch])).rowCount ?? 0;
    deleted += n;
    if (n > 0) pruned().inc({ table: rule.table }, n);
    if (n < batch) return { deleted, batches };
  }
}

/** One pass over every table; returns the rows deleted from each. */
export async function pruneOnce(
  pool: Pool,
  retentions: Retention[],
  batch = RETENTION_BATCH,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of retentions) out[r.rule.table] = (await sweep(pool, r, batch)).deleted;
  return out;
}

/** The pruning loop of a service: at start, then hourly. Every table's counter starts at 0. */
export function retentionWorker(
  pool: Pool,
  log: Logger,
  retentions: Retention[],
  intervalMs = 3600_000,
): IntervalWorker {
  for (const { rule } of retentions) pruned().inc({ table: rule.table }, 0);
  return new IntervalWorker({ name: 'retention', intervalMs, log }, async () => {
    const n = await pruneOnce(pool, retentions);
    if (Object.values(n).some((v) => v > 0)) log.info({ pruned: n }, 'retention: pruned rows');
  });
}
