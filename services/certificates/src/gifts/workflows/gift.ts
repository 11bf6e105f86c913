// The gift workflow on Restate.
//
// Why durable: a gift waits on people (the recipient's claim, the sender's revoke) and on
// time (the expiry, days away), and a claim spans a chain transfer that must end exactly
// once even when this process or Restate is killed in the middle.
//
// How it is keyed: a Restate *workflow* `GiftTransfer` keyed by the transfer id (gift_…).
// `run` executes once per key (CreateGift starts it; the starter worker repeats the start
// while Restate was unreachable, a repeat is a no-op). `claim` and `revoke` are its signals:
// they resolve the durable promise `decision`.
//
// The database decides, the workflow acts: the single-use gate is the conditional UPDATE of
// the claim (store.take), and revoke and expiry are conditional on `pending` too, so a signal
// only wakes the run, which then reads the gift's state. The run also re-reads it every
// RECHECK_MS, so a claim whose signal was lost (a crash between the commit and the signal)
// still completes.
//
// Steps: notify the recipient (notify's idempotency key `gift:<id>:email:0`, so a repeated
// step never e-mails twice) → wait for a decision or the durable timer at `expiresAt` →
//   claiming: the transfer step (keyed `gift:<id>[:<attempt>]`: one transfer per key; a failed
//     transfer moves to the next attempt; retried with capped backoff until the transfer is
//     confirmed, so a claim never ends half-done) → claimed;
//   revoked: done (the certificate never moved);
//   still pending at expiry: the record is removed and the sender is told (when their
//     session proved an e-mail).
// Terminal: a notification every provider refuses for good (the gift still waits for a claim:
// the sender can resend); the gift gone. Cancelling the run in the Restate UI leaves the gift
// in the database as it is (pending gifts then stay until revoked).
import { invocation } from '@hallmark/kit';
import * as restate from '@restatedev/restate-sdk';
import { NotYet, type GiftSteps } from './steps.js';

const STEP_RETRY = { initialRetryInterval: 200, retryIntervalFactor: 2, maxRetryInterval: 5_000 };
/** The notification: bounded, so a refused recipient does not hold the gift's timer up. */
const NOTIFY_RETRY = { ...STEP_RETRY, maxRetryDuration: 10 * 60_000 };
const RECHECK_MS = 60_000;

/**
 * A signal only wakes the run (the database holds the decision), so a second signal (a
 * repeated claim, a revoke after a claim) finding the promise already resolved is fine.
 */
async function wake(ctx: restate.WorkflowSharedContext, signal: string): Promise<void> {
  try {
    await ctx.promise<string>('decision').resolve(signal);
  } catch (err) {
    if (!(err instanceof restate.TerminalError)) throw err;
  }
}

export const GIFT_WORKFLOW = 'GiftTransfer';

/** The workflow's name and type, for the typed ingress client (ingress.ts). */
export const GiftTransfer: ReturnType<typeof giftWorkflow> = { name: GIFT_WORKFLOW };

export function giftWorkflow(steps: GiftSteps) {
  return restate.workflow({
    name: GIFT_WORKFLOW,
    handlers: {
      run: invocation(
        `${GIFT_WORKFLOW}/run`,
        async (ctx: restate.WorkflowContext): Promise<{ status: string }> => {
          const id = ctx.key;
          try {
            await ctx.run('notify recipient', () => steps.notifyCreated(id), NOTIFY_RETRY);
          } catch (err) {
            if (!(err instanceof restate.TerminalError)) throw err;
            ctx.console.warn(`gift ${id}: recipient not notified: ${err.message}`);
            await ctx.run('notification failed', () => steps.notificationFailed(id), STEP_RETRY);
          }
          let woken = false;
          for (let i = 0; ; i++) {
            const state = await ctx.run(`state #${i}`, () => steps.state(id), STEP_RETRY);
            if (!state) return { status: 'gone' };
            if (state.status === 'revoked' || state.status === 'claimed') return { status: state.status };
            if (state.status === 'claiming') {
              const outcome = await ctx.run(
                `transfer #${i}`,
                async () => {
                  try {
                    return await steps.transfer(id);
                  } catch (err) {
                    // Still on its way: ask again soon (never terminal).
                    if (err instanceof NotYet)
                      throw new restate.RetryableError(err.message, { retryAfter: 1000 });
                    throw err;
                  }
                },
                STEP_RETRY,
              );
              if (outcome === 'claimed' || outcome === 'gone') return { status: outcome };
              continue; // released: pending again until a claim, revoke or the expiry
            }
            const remaining = state.expiresAtMs - (await ctx.date.now());
            if (remaining <= 0) {
              const expired = await ctx.run(`expire #${i}`, () => steps.expire(id), STEP_RETRY);
              if (!expired.removed) continue; // a claim or revoke won: act on it
              if (expired.notice) {
                const notice = expired.notice;
                await ctx
                  .run('notify sender', () => steps.notifySender(notice), NOTIFY_RETRY)
                  .catch((err: unknown) => {
                    if (!(err instanceof restate.TerminalError)) throw err;
                  });
              }
              return { status: 'expired' };
            }
            const wait = Math.min(remaining, RECHECK_MS);
            if (!woken) {
              try {
                await ctx.promise<string>('decision').get().orTimeout(wait);
                woken = true;
              } catch (err) {
                if (!(err instanceof restate.TimeoutError)) throw err;
              }
            } else {
              await ctx.sleep(wait);
            }
          }
        },
      ),
      claim: (ctx: restate.WorkflowSharedContext) => wake(ctx, 'claim'),
      revoke: (ctx: restate.WorkflowSharedContext) => wake(ctx, 'revoke'),
    },
    options: { inactivityTimeout: 5 * 60_000, abortTimeout: 10 * 60_000 },
  });
}
