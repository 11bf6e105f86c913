// Following a bulk job to its end with the live bar, and its closing summary. Ctrl-C stops
// only the watching: the job keeps running on the server, and the line printed says how to
// re-attach.
import { type Hallmark, type JobProgress, watchJob } from '@hallmark/client';
import type { Ctx } from '../context.js';
import { jobBar } from '../progress.js';

export async function follow(ctx: Ctx, hm: Hallmark, jobId: string): Promise<JobProgress> {
  const bar = ctx.json ? undefined : jobBar(jobId);
  const started = Date.now();
  const detach = () => {
    bar?.stop();
    process.stderr.write(
      `\nStopped watching. Job ${jobId} keeps running on the server.\n` +
        `Re-attach with: hallmark bulk watch ${jobId}\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', detach);
  let last: JobProgress | undefined;
  try {
    for await (const p of watchJob(hm, jobId, { intervalMs: 1000 })) {
      last = p;
      bar?.update(p);
    }
  } finally {
    process.removeListener('SIGINT', detach);
    bar?.stop();
  }
  summary(ctx, last!, jobElapsedMs(last!.job) ?? Date.now() - started);
  return last!;
}

/**
 * A finished job's own time, from the server's records: its last retry's start (or its
 * creation) to its completion. A watcher that attaches late, or after a retry, would
 * otherwise report only its own wait ("completed in 0.1 s" for a 38 s retry).
 */
export function jobElapsedMs(job: Record<string, unknown>): number | undefined {
  const end = Date.parse(String(job.completedAt ?? ''));
  const start = Date.parse(String(job.retriedAt ?? job.createdAt ?? ''));
  return Number.isFinite(end) && Number.isFinite(start) ? Math.max(0, end - start) : undefined;
}

export function summary(ctx: Ctx, p: JobProgress, elapsedMs?: number): void {
  ctx.print(p.answer, () => {
    const took = elapsedMs === undefined ? '' : ` in ${(elapsedMs / 1000).toFixed(1)} s`;
    console.log(
      `Job ${p.jobId} ${p.status}${took}: ${p.total} items, ${p.succeeded} succeeded, ${p.failed} failed.`,
    );
    const errors = (p.job.errors as { row: number; error: string }[] | undefined) ?? [];
    for (const e of errors.slice(0, 10)) console.log(`  row ${e.row}: ${e.error}`);
    if (errors.length > 10)
      console.log(`  … and ${errors.length - 10} more (hallmark bulk download ${p.jobId} --csv)`);
    if (p.job.error) console.log(`  error: ${String(p.job.error)}`);
    if (p.done && p.succeeded > 0) console.log(`Results: hallmark bulk download ${p.jobId} --csv`);
  });
}

/** Exit status of a finished job: 0 completed, 1 failed or cancelled. */
export const jobExitCode = (p: JobProgress) => (p.status === 'completed' ? 0 : 1);
