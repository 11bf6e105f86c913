// Starting job runs on Restate through its ingress, and keeping them started: a job is
// committed first, then its run is sent with the idempotency key `<jobId>:<pass>` (a repeat
// attaches to the same invocation). If Restate is unreachable at that moment, the submitter
// worker (workers/submitter.ts) re-sends every job whose current pass Restate has not
// acknowledged.
import { restateCallHeaders, type Logger } from '@hallmark/kit';
import type { JobsStore } from '../store.js';

export interface RestateIngress {
  /** Sends the run without waiting for it; true once Restate accepted it. */
  send(jobId: string, pass: number): Promise<void>;
  /** Calls the run and waits (bounded) for its end; null when the wait ran out. */
  call(jobId: string, pass: number, timeoutMs: number): Promise<{ status: string } | null>;
}

export function restateIngress(ingressUrl: string): RestateIngress {
  const url = (jobId: string, suffix: string) =>
    new URL(`/BulkJob/${encodeURIComponent(jobId)}/run${suffix}`, ingressUrl).toString();
  const init = (jobId: string, pass: number, signal: AbortSignal): RequestInit => ({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': `${jobId}:${pass}`,
      ...restateCallHeaders(),
    },
    body: JSON.stringify({ pass }),
    signal,
  });
  return {
    async send(jobId, pass) {
      const res = await fetch(url(jobId, '/send'), init(jobId, pass, AbortSignal.timeout(5000)));
      if (!res.ok) throw new Error(`Restate refused the run of ${jobId}: ${res.status} ${await res.text()}`);
      await res.body?.cancel();
    },
    async call(jobId, pass, timeoutMs) {
      try {
        const res = await fetch(url(jobId, ''), init(jobId, pass, AbortSignal.timeout(timeoutMs)));
        if (!res.ok) throw new Error(`Restate answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as { status: string };
      } catch (err) {
        if ((err as Error).name === 'TimeoutError') return null;
        throw err;
      }
    },
  };
}

/** Sends a run and records the acknowledgement; a failure is left to the submitter worker. */
export async function submitRun(
  ingress: RestateIngress,
  jobs: JobsStore,
  jobId: string,
  pass: number,
  log: Logger,
): Promise<boolean> {
  try {
    await ingress.send(jobId, pass);
    await jobs.markSubmitted(jobId, pass);
    return true;
  } catch (err) {
    log.warn({ err, jobId, pass }, 'job run not submitted yet; the submitter will retry');
    return false;
  }
}
