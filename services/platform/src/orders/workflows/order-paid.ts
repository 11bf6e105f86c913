// The paid-order workflow on Restate.
//
// Why Restate: a paid order spans three processes and an outside party (platform → bulk →
// certificates → chain → the shop's Admin API); any of them, or Restate, may die at any
// point, and the order must end with exactly one bulk job and at most one fulfilment.
//
// How it is keyed: a Restate *workflow* `PlatformOrder` keyed by `<shop>|<order gid>`. A
// workflow's `run` executes once per key, so redelivered or duplicated `orders/paid`
// webhooks cannot start a second run. The bulk job is created under an Idempotency-Key
// derived from shop and order (a repeated step gets bulk's 409 and adopts the existing job);
// a fulfilment attempt first reads the order's fulfillment orders and treats closed ones as
// done, so a repeated attempt never fulfils twice.
//
// Waiting: the job's end arrives as bulk's `bulk.job.completed|failed` event (the consumer
// in workers/ calls `jobFinished`); the run also re-reads the job every 30 s in case an
// event is missed.
//
// Errors: an order the job cannot be made from (no image, no line items) and bulk's
// validation refusals are recorded and end the run; transport failures retry with backoff
// capped at 10 s. Fulfilment failures are recorded after 3 attempts and never fail the job.
import { invocation } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import { MAX_ATTEMPTS } from '../../fulfilment/domain/fulfilment.js';
import type { OrderSteps } from '../order-steps.js';
import { splitOrderKey, WORKFLOW_NAME } from './ingress.js';

const STEP_RETRY = { initialRetryInterval: 200, retryIntervalFactor: 2, maxRetryInterval: 10_000 };
const RECHECK_MS = 30_000;

export function orderWorkflow(steps: OrderSteps) {
  return restate.workflow({
    name: WORKFLOW_NAME,
    handlers: {
      run: invocation(
        `${WORKFLOW_NAME}/run`,
        async (ctx: restate.WorkflowContext): Promise<{ status: string }> => {
          const { shop, orderId } = splitOrderKey(ctx.key);
          const plan = await ctx.run('plan', () => steps.plan(shop, orderId), STEP_RETRY);
          if ('skip' in plan) return { status: `skipped: ${plan.skip}` };

          const created = await ctx.run('create job', () => steps.createJob(shop, orderId, plan), STEP_RETRY);
          if (!created.jobId) return { status: 'refused' };

          let outcome = await ctx.run(
            'read job',
            () => steps.jobOutcome(shop, orderId, plan, created.jobId!),
            STEP_RETRY,
          );
          for (let i = 0; !outcome.finished; i++) {
            try {
              await ctx.promise<boolean>('job-finished').get().orTimeout(RECHECK_MS);
            } catch (err) {
              if (!(err instanceof restate.TimeoutError)) throw err;
            }
            outcome = await ctx.run(
              `read job #${i}`,
              () => steps.jobOutcome(shop, orderId, plan, created.jobId!),
              STEP_RETRY,
            );
          }
          if (outcome.cancelled) return { status: `job ${outcome.status}; order cancelled, vouchers voided` };
          if (!plan.autoFulfill) return { status: `job ${outcome.status}` };
          if (!outcome.transactionHash) {
            await ctx.run(
              'no fulfilment',
              () => steps.skipFulfilment(shop, orderId, 'The job minted no certificate.'),
              STEP_RETRY,
            );
            return { status: `job ${outcome.status}` };
          }
          for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            const final = attempt === MAX_ATTEMPTS;
            const r = await ctx.run(
              `fulfil #${attempt}`,
              () => steps.fulfil(shop, orderId, outcome.transactionHash!, final),
              STEP_RETRY,
            );
            if (r === 'fulfilled') break;
            if (!final) await ctx.sleep(steps.backoff(attempt));
          }
          return { status: `job ${outcome.status}` };
        },
      ),
      jobFinished: async (ctx: restate.WorkflowSharedContext): Promise<void> => {
        await ctx.promise<boolean>('job-finished').resolve(true);
      },
    },
    options: { inactivityTimeout: 5 * 60_000, abortTimeout: 10 * 60_000 },
  });
}
