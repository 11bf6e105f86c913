// Keeping workflows started. A service commits the row a workflow is for first, then sends
// the start to Restate's ingress and records Restate's acceptance. If Restate is unreachable
// at that moment, the keep-started worker sends it again, every interval, until Restate
// accepts it (a repeated start is a no-op: one workflow per key, or an idempotency key).
import type { Pool } from '../db.js';
import { IntervalWorker } from '../interval-worker.js';
import type { Logger } from '../log.js';

/**
 * Sends a start and records Restate's acceptance; false (logged, left to the keep-started
 * worker) when Restate did not accept it.
 */
export async function startAndRecord(
  log: Logger,
  what: Record<string, unknown>,
  send: () => Promise<unknown>,
  markStarted: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await send();
    await markStarted();
    return true;
  } catch (err) {
    log.warn({ err, ...what }, 'workflow not started yet; the keep-started worker retries');
    return false;
  }
}

export interface KeepStartedOptions<T> {
  name: string;
  /** The advisory lock: one replica at a time sends. */
  lockKey: string;
  intervalMs: number;
  pool: Pool;
  log: Logger;
  /** Up to `limit` rows committed whose start Restate has not accepted yet. */
  unstarted(limit: number): Promise<T[]>;
  /** `startAndRecord` for one row; false ends the pass (Restate is likely down). */
  start(row: T): Promise<boolean>;
  /** Other retried work of the same service run in the same pass (after the starts). */
  alsoEachPass?: () => Promise<void>;
}

export function keepStartedWorker<T>(o: KeepStartedOptions<T>): IntervalWorker {
  return new IntervalWorker(
    { name: o.name, intervalMs: o.intervalMs, log: o.log, pool: o.pool, lockKey: o.lockKey },
    async () => {
      for (const row of await o.unstarted(100)) if (!(await o.start(row))) break;
      await o.alsoEachPass?.();
    },
  );
}
