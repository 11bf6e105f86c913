// The submitter: re-sends to Restate every job whose current pass Restate has not
// acknowledged (it was down when the job was created or retried). One replica at a time
// (advisory lock), every interval (kit `keepStartedWorker`).
import { keepStartedWorker, type Logger, type Pool } from '@hallmark/kit';
import type { JobsStore } from '../store.js';
import { submitRun, type JobRuns } from '../workflows/submit.js';

export function submitterWorker(runs: JobRuns, jobs: JobsStore, pool: Pool, log: Logger, intervalMs: number) {
  return keepStartedWorker({
    name: 'job submitter',
    lockKey: 'bulk-submitter',
    intervalMs,
    pool,
    log,
    unstarted: (limit) => jobs.unsubmitted(limit),
    start: ({ id, pass }) => submitRun(runs, jobs, id, pass, log),
  });
}
