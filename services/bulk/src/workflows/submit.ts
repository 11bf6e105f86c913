// Starting job runs on Restate through its ingress (kit's typed client), and keeping them
// started: a job is committed first, then its run is sent with the idempotency key
// `<jobId>:<pass>` (a repeat attaches to the same invocation). If Restate is unreachable at
// that moment, the submitter worker (workers/submitter.ts) re-sends every job whose current
// pass Restate has not acknowledged.
import { startAndRecord, type Logger } from '@hallmark/kit';
import { callOpts, restateIngress, sendOpts } from '@hallmark/kit/restate';
import type { JobsStore } from '../store.js';
import { BulkJob } from './bulk-job.js';

export interface JobRuns {
  /** Sends the run without waiting for it; resolves once Restate accepted it. */
  send(jobId: string, pass: number): Promise<void>;
  /** Calls the run and waits (bounded) for its end; null when the wait ran out. */
  call(jobId: string, pass: number, timeoutMs: number): Promise<{ status: string } | null>;
}

const runKey = (jobId: string, pass: number) => `${jobId}:${pass}`;

export function jobRuns(ingressUrl: string): JobRuns {
  const ingress = restateIngress(ingressUrl);
  return {
    async send(jobId, pass) {
      await ingress
        .objectSendClient(BulkJob, jobId)
        .run({ pass }, sendOpts({ timeoutMs: 5000, idempotencyKey: runKey(jobId, pass) }));
    },
    async call(jobId, pass, timeoutMs) {
      try {
        return await ingress
          .objectClient(BulkJob, jobId)
          .run({ pass }, callOpts({ timeoutMs, idempotencyKey: runKey(jobId, pass) }));
      } catch (err) {
        if ((err as Error).name === 'TimeoutError') return null;
        throw err;
      }
    },
  };
}

/** Sends a run and records the acknowledgement; a failure is left to the submitter worker. */
export function submitRun(runs: JobRuns, jobs: JobsStore, jobId: string, pass: number, log: Logger) {
  return startAndRecord(
    log,
    { jobId, pass },
    () => runs.send(jobId, pass),
    () => jobs.markSubmitted(jobId, pass),
  );
}
