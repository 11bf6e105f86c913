// The submitter: re-sends to Restate every job whose current pass Restate has not
// acknowledged (it was down when the job was created or retried). One replica at a time
// (advisory lock), every interval.
import { IntervalWorker, type Logger, type Pool } from '@hallmark/kit';
import type { JobsStore } from '../store.js';
import { submitRun, type RestateIngress } from '../workflows/submit.js';

export function submitterWorker(
  ingress: RestateIngress,
  jobs: JobsStore,
  pool: Pool,
  log: Logger,
  intervalMs: number,
): IntervalWorker {
  return new IntervalWorker(
    { name: 'job submitter', intervalMs, log, pool, lockKey: 'bulk-submitter' },
    async () => {
      for (const { id, pass } of await jobs.unsubmitted(100)) {
        if (!(await submitRun(ingress, jobs, id, pass, log))) break;
      }
    },
  );
}
