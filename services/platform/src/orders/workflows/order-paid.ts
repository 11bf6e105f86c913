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
// The Admin API is not in the job's way (spec: it comes after the job): the product lookup
// tries GraphQL, then REST, a bounded number of times (`attempts`); when both keep failing
// the job is built from the order's own line items, with the image from the mapping or the
// issuer profile. Only when neither gives a unit an image is the product the only source
// left: then the lookup is tried again after waits (`waitMs`, doubling, `waits` times) before
// the order is reported, so an Admin API blip or throttling does not fail a paid order. The
// certificates are not enriched later: their metadata is anchored on chain at mint.
//
// Errors: an order the job cannot be made from (a unit with no image anywhere) and bulk's
// validation refusals are reported (on the order, as the integration's lastError and as the
// enterprise webhook platform.order.failed) and end the run; an order without line items is
// skipped; transport failures retry with backoff capped at 10 s. Fulfilment failures are
// recorded after 3 attempts and never fail the job.
import { invocation } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import { MAX_ATTEMPTS } from '../../fulfilment/domain/fulfilment.js';
import { productWaitMs, type ProductLookup } from '../domain/product-lookup.js';
import type { OrderSteps, ProductEntries } from '../order-steps.js';

const STEP_RETRY = { initialRetryInterval: 200, retryIntervalFactor: 2, maxRetryInterval: 10_000 };
const RECHECK_MS = 30_000;

export const WORKFLOW_NAME = 'PlatformOrder';

/** The workflow's name and type, for the typed ingress client (ingress.ts). */
export const PlatformOrder: ReturnType<typeof orderWorkflow> = { name: WORKFLOW_NAME };

/** The workflow key: shop and order global id (both free of `|`). */
export const orderKey = (shop: string, orderId: string) => `${shop}|${orderId}`;

export function splitOrderKey(key: string): { shop: string; orderId: string } {
  const i = key.indexOf('|');
  return { shop: key.slice(0, i), orderId: key.slice(i + 1) };
}

export function orderWorkflow(steps: OrderSteps, lookup: ProductLookup) {
  return restate.workflow({
    name: WORKFLOW_NAME,
    handlers: {
      run: invocation(
        `${WORKFLOW_NAME}/run`,
        async (ctx: restate.WorkflowContext): Promise<{ status: string }> => {
          const { shop, orderId } = splitOrderKey(ctx.key);
          const plan = await ctx.run('plan', () => steps.plan(shop, orderId), STEP_RETRY);
          if ('skip' in plan) return { status: `skipped: ${plan.skip}` };

          /** The order's products, or null when the Admin API could not be read (`attempts` times). */
          const readProducts = async (name: string): Promise<ProductEntries | null> => {
            try {
              return await ctx.run(name, () => steps.products(shop, orderId), {
                ...STEP_RETRY,
                maxRetryAttempts: lookup.attempts,
              });
            } catch (err) {
              if (!(err instanceof restate.TerminalError)) throw err;
              await ctx.run(`${name} unavailable`, () =>
                steps.productsUnavailable(shop, orderId, err.message),
              );
              return null;
            }
          };
          const formOf = (name: string, products: ProductEntries | null) =>
            ctx.run(name, () => steps.orderForm(shop, orderId, plan.principal, products ?? []), STEP_RETRY);

          let products = await readProducts('products');
          let form = await formOf('order form', products);
          // A unit with no image but its product's: the Admin API is needed after all. Waited for
          // (durable sleeps) before the order is reported as one that cannot become a job.
          for (let i = 0; 'failure' in form && products === null && i < lookup.waits; i++) {
            await ctx.sleep(productWaitMs(lookup.waitMs, i));
            products = await readProducts(`products #${i + 1}`);
            if (products !== null) form = await formOf(`order form #${i + 1}`, products);
          }
          const ready = form;
          const created =
            'failure' in ready
              ? ready
              : await ctx.run(
                  'create job',
                  () => steps.createJob(shop, orderId, plan, ready.bodyJson),
                  STEP_RETRY,
                );
          if ('failure' in created) {
            const failure = created.failure;
            await ctx.run('report failure', () => steps.reportFailure(shop, orderId, failure), STEP_RETRY);
            return { status: `failed: ${failure.code}` };
          }

          let outcome = await ctx.run(
            'read job',
            () => steps.jobOutcome(shop, orderId, plan, created.jobId),
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
              () => steps.jobOutcome(shop, orderId, plan, created.jobId),
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
