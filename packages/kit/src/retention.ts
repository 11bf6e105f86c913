// Retention of the kit's bookkeeping tables. Every event leaves a published `outbox` row in
// its producer's database and a `processed_events` row in each consumer's (a redemption:
// three of each). Unpruned, both grow for ever and their indexes with them. Each replica
// deletes, hourly, in bounded batches (SKIP LOCKED: replicas never wait on each other):
//  - published outbox rows written more than HALLMARK_OUTBOX_RETENTION_HOURS ago (default 7
//    days: what was sent, for an operator looking back). An unpublished row is never touched: the relay
//    still owes it to NATS;
//  - processed event ids once their event can no longer arrive again: older than the
//    HALLMARK stream's max age and the dead-letter stream's (a replay from it), whichever
//    is longer, plus a day. Until then a redelivery still finds its id and stays a no-op.
import type { Pool } from './db.js';
import { IntervalWorker } from './interval-worker.js';
import type { Logger } from './log.js';
import { counter } from './metrics.js';

const DAY_MS = 24 * 3600_000;
/** Rows per DELETE: short statements, so a large backlog never holds locks for long. */
const BATCH = 5000;

export interface RetentionSettings {
  /** How long a published outbox row is kept. */
  outboxMs: number;
  /** The HALLMARK stream's max age and the dead-letter stream's (busSettings). */
  streamMaxAgeMs: number;
  dlqMaxAgeMs: number;
}

/** How long a processed event id must be kept: while its event can still be delivered again. */
export const processedKeepMs = (s: RetentionSettings): number =>
  Math.max(s.streamMaxAgeMs, s.dlqMaxAgeMs) + DAY_MS;

const pruned = () =>
  counter('hallmark_retention_pruned_rows_total', 'Bookkeeping rows deleted by retention', ['table']);

/** One pruning pass; returns the rows deleted from each table. */
export async function pruneOnce(
  pool: Pool,
  s: RetentionSettings,
): Promise<{ outbox: number; processedEvents: number }> {
  const outbox = await inBatches(
    pool,
    `DELETE FROM outbox WHERE seq IN (
       SELECT seq FROM outbox WHERE created_at < now() - make_interval(secs => $1)
         AND published_at IS NOT NULL LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    s.outboxMs / 1000,
  );
  const processedEvents = await inBatches(
    pool,
    `DELETE FROM processed_events WHERE ctid IN (
       SELECT ctid FROM processed_events WHERE processed_at < now() - make_interval(secs => $1)
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    processedKeepMs(s) / 1000,
  );
  if (outbox > 0) pruned().inc({ table: 'outbox' }, outbox);
  if (processedEvents > 0) pruned().inc({ table: 'processed_events' }, processedEvents);
  return { outbox, processedEvents };
}

async function inBatches(pool: Pool, sql: string, olderThanS: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(sql, [olderThanS, BATCH]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) return total;
  }
}

/** The pruning loop of a service: at start, then hourly. */
export function retentionWorker(
  pool: Pool,
  log: Logger,
  s: RetentionSettings,
  intervalMs = 3600_000,
): IntervalWorker {
  return new IntervalWorker({ name: 'retention', intervalMs, log }, async () => {
    const n = await pruneOnce(pool, s);
    if (n.outbox + n.processedEvents > 0) log.info(n, 'retention: pruned bookkeeping rows');
  });
}
