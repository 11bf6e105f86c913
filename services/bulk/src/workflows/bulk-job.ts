// The bulk-job workflow on Restate.
//
// Why Restate: a job of 50,000 items runs for minutes across three processes (bulk,
// certificates, the chain); any of them, or Restate itself, may die at any point. Restate
// journals each completed step, so a re-invoked run skips what is done and repeats only the
// step that was in flight, and the operator UI (admin port, /ui) shows every job's run.
//
// How it is keyed: a virtual object `BulkJob` keyed by the job id, handler `run({pass})`.
// One key runs one invocation at a time, so two runs of one job can never interleave. Each
// run (the first, and each accepted retry) is sent with the idempotency key
// `<jobId>:<pass>`, so a duplicate submission attaches to the same invocation; a stale pass
// ends at once. (A Restate *workflow* runs once per key, which does not fit retries.)
//
// Batches: item batches of up to 1,000 are taken in order under the MintBatch idempotency
// key `<jobId>:<batch>` (`<jobId>:r<pass>:<batch>` for retries, `…:a<batch>` for the
// automatic second attempt of failed items), up to `pipelineDepth` batches ahead of the one
// being completed. Cancellation is checked before each new batch.
//
// Failures: a domain refusal (bad item, conflict) is recorded on the batch's items and is
// final for that attempt. A transport failure (certificates down, deadline) is retried with
// backoff capped at 10 s between attempts and never turned into an item failure: whether the
// call took effect is unknown, and re-sending those items under a new key could mint them
// twice. So the run waits, visible in the Restate UI, until the service answers again.
import { invocation } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import type { JobSteps, MintResult } from './steps.js';

export interface BulkJobOptions {
  pipelineDepth: number;
  /** How long one wait step waits for a batch's confirmation (ms). */
  waitMs?: number;
}

/** Transport failures: retried with exponential backoff, at most 10 s apart, until they pass. */
const STEP_RETRY = {
  initialRetryInterval: 200,
  retryIntervalFactor: 2,
  maxRetryInterval: 10_000,
};

interface InFlight {
  key: string;
  batchId: string | null;
  /** Settle steps that found the batch still pending on chain. */
  tries: number;
}

/** The object's name and type, for the typed ingress client (kit `restateIngress`). */
export const BulkJob: ReturnType<typeof bulkJobObject> = { name: 'BulkJob' };

export function bulkJobObject(steps: JobSteps, opts: BulkJobOptions) {
  const waitMs = opts.waitMs ?? 20_000;
  return restate.object({
    name: 'BulkJob',
    handlers: {
      run: invocation(
        'BulkJob/run',
        async (ctx: restate.ObjectContext, input: { pass: number }): Promise<{ status: string }> => {
          const jobId = ctx.key;
          const pass = Number(input?.pass ?? 0);
          const start = await ctx.run('start', () => steps.start(jobId, pass), STEP_RETRY);
          if (!start.run) return { status: start.status };

          const base = pass === 0 ? jobId : `${jobId}:r${pass}`;
          let cancelled = await runRound(ctx, steps, `${base}:`, opts.pipelineDepth, waitMs);
          if (!cancelled) {
            // Failed items are retried automatically once (spec › Bulk job).
            const again = await ctx.run('auto-retry', () => steps.resetForAutoRetry(jobId), STEP_RETRY);
            if (again > 0) cancelled = await runRound(ctx, steps, `${base}:a`, opts.pipelineDepth, waitMs);
          }
          if (cancelled) {
            await ctx.run('cancelled', () => steps.cancelRemaining(jobId), STEP_RETRY);
            return { status: 'cancelled' };
          }
          const status = await ctx.run('finish', () => steps.finish(jobId, pass), STEP_RETRY);
          return { status };
        },
      ),
    },
    options: {
      // A step may wait on the chain for a while; do not suspend it half-way.
      inactivityTimeout: 5 * 60_000,
      abortTimeout: 10 * 60_000,
    },
  });
}

/**
 * One round over the pending items in batches; answers whether the job was cancelled.
 *
 * The next batch's mint step runs while the head batch is settled (awaited on chain, then its
 * vouchers and results): run one after the other, the two halves took turns and a minted
 * batch waited 4–10 s for its voucher step while the chain sat idle. Both are steps of the
 * same round of the loop, created in a fixed order and awaited together with
 * `RestatePromise.all` (the SDK's combinator: a replay sees the same journal), and the next
 * round starts only once both are done, so at most `depth` batches are in flight.
 */
async function runRound(
  ctx: restate.ObjectContext,
  steps: JobSteps,
  prefix: string,
  depth: number,
  waitMs: number,
): Promise<boolean> {
  const jobId = ctx.key;
  const inFlight: InFlight[] = [];
  let next = 0;
  let exhausted = false;
  let cancelled = false;
  const mintStep = () => {
    const key = `${prefix}${next}`;
    return ctx.run(`mint ${key}`, () => steps.mint(jobId, key), STEP_RETRY);
  };
  const minted = (res: MintResult) => {
    if (res.done) {
      exhausted = true;
      cancelled = res.cancelled;
      return;
    }
    inFlight.push({ key: res.key, batchId: res.batchId, tries: 0 });
    next++;
  };
  // Batches minted ahead before the first is settled; each round then mints one more.
  while (!exhausted && inFlight.length < depth - 1) minted(await mintStep());
  for (;;) {
    const head = inFlight[0];
    if (!head) {
      if (exhausted) return cancelled;
      minted(await mintStep());
      continue;
    }
    if (!head.batchId) {
      inFlight.shift();
      continue;
    }
    const { batchId } = head;
    const settle = ctx.run(
      `settle ${head.key} #${head.tries}`,
      () => steps.settle(jobId, head.key, batchId, waitMs),
      STEP_RETRY,
    );
    let settled: 'pending' | 'done';
    if (!exhausted && inFlight.length < depth) {
      const [res, s] = await restate.RestatePromise.all([mintStep(), settle]);
      minted(res);
      settled = s;
    } else settled = await settle;
    if (settled === 'pending') head.tries++;
    else inFlight.shift(); // the head: a batch minted meanwhile went to the end
  }
}
