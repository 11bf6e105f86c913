// The decisions of a redemption, before and after the database has its say: what an attempt
// will write (its plan), whether the one-statement fast path may try it, whether a replay
// matches the original, whether the per-customer limit is passed, and the events a
// redemption commits with. Pure: ids and clocks come in as arguments.
import { HallmarkError } from '@hallmark/kit/errors';
import { newEvent, type EventInput, type EventType } from '@hallmark/kit/events';
import {
  redeemedObject,
  redemptionResult,
  transactionObject,
  type RedemptionRecord,
  type RedemptionResult,
  type TransactionStatus,
} from './redemption.js';
import { computeDiscount, refusalFor } from './rules.js';
import type { Redemption } from './validation.js';
import type { Scope, VoucherRecord, VoucherTerms } from './voucher.js';

/** What a redemption attempt will write, fixed before its transaction. */
export interface Plan {
  input: Redemption;
  currency: string;
  /** Null: a percentage without the order amount (computeDiscount). */
  discount: number | null;
  userId: string;
}

export const voucherNotFound = () => new HallmarkError('voucher_not_found', { param: 'code' });

export function planRedemption(
  scope: Scope,
  v: VoucherTerms,
  input: Redemption,
  defaultCurrency: string,
): Plan {
  if (v.maxUsesPerCustomer !== null && !input.customerId) {
    throw new HallmarkError('parameter_missing', {
      param: 'customer_id',
      message: 'This voucher is limited per customer: customer_id is required.',
    });
  }
  return {
    input,
    currency: input.currency ?? v.currency ?? defaultCurrency,
    discount: computeDiscount(v.type, v.value, input.amount),
    userId: input.customerId ?? scope.actorId,
  };
}

export function currencyMismatch(v: VoucherTerms, currency: string): HallmarkError | null {
  if (v.currency === null || v.currency === currency) return null;
  return new HallmarkError('parameter_invalid', {
    param: 'currency',
    message: `This voucher applies only to orders in ${v.currency}.`,
  });
}

/**
 * The fast path is for a voucher that, as last read, can be redeemed and has a use to
 * spare after this one; its statement re-checks all of that under the lock.
 */
export function fastPathApplies(v: VoucherRecord, now: Date): boolean {
  return (
    v.maxUsesPerCustomer === null &&
    refusalFor(v, now) === null &&
    (v.maxUses === null || v.timesUsed + 1 < v.maxUses)
  );
}

/** The redemption row a plan writes (or, for a refusal, the attempt its event describes). */
export function redemptionOf(v: VoucherTerms, plan: Plan, transactionId: string, at: Date): RedemptionRecord {
  return {
    voucherId: v.id,
    orderId: plan.input.orderId,
    transactionId,
    customerId: plan.input.customerId,
    userId: plan.userId,
    amount: plan.input.amount,
    currency: plan.currency,
    discountApplied: plan.discount,
    voucherVersion: null,
    createdAt: at,
    rolledBackAt: null,
  };
}

/** The stored result of an earlier redemption of this order, if the request matches it. */
export function replayOf(v: VoucherRecord, prior: RedemptionRecord, plan: Plan): RedemptionResult {
  const { input } = plan;
  if (
    prior.amount !== input.amount ||
    prior.currency !== plan.currency ||
    prior.customerId !== input.customerId
  ) {
    throw new HallmarkError('resource_already_exists', {
      param: 'order_id',
      message: 'This order already redeemed the voucher with a different amount, currency or customer.',
    });
  }
  return redemptionResult(v, prior, true);
}

/** The answer of a dry run for an order with no redemption yet. */
export function dryRunResult(v: VoucherRecord, plan: Plan): RedemptionResult {
  return redemptionResult(
    v,
    { ...plan.input, currency: plan.currency, discountApplied: plan.discount },
    false,
  );
}

/**
 * The per-customer limit, given how many unrolled-back redemptions the customer has of the
 * voucher. `pending` is 1 for a dry run (the use not yet recorded) and 0 inside a redemption
 * (its own row is already counted).
 */
export function customerLimitRefusal(v: VoucherRecord, used: number, pending: number): HallmarkError | null {
  if (v.maxUsesPerCustomer === null || used + pending <= v.maxUsesPerCustomer) return null;
  return new HallmarkError('voucher_max_uses_reached', {
    param: 'customer_id',
    message: 'This customer has used the voucher the maximum number of times.',
  });
}

/** Why a voucher refuses a use now; null when it is redeemable (again). */
export function refusalError(v: VoucherRecord, now: Date): HallmarkError | null {
  const code = refusalFor(v, now);
  return code ? new HallmarkError(code, { param: 'code' }) : null;
}

type TransactionEventType =
  'transaction.created' | 'transaction.completed' | 'transaction.failed' | 'transaction.updated';

export function transactionEvent(
  type: TransactionEventType,
  v: VoucherTerms,
  r: RedemptionRecord,
  status: TransactionStatus,
  extra: Record<string, unknown> = {},
): EventInput<EventType> {
  return newEvent(type, { object: transactionObject(v, r, status, extra) }, v);
}

/** What a redemption emits with its commit: the Transaction, pending then completed, and voucher.redeemed. */
export function redemptionEvents(v: VoucherTerms, r: RedemptionRecord): EventInput<EventType>[] {
  return [
    transactionEvent('transaction.created', v, r, 'pending'),
    transactionEvent('transaction.completed', v, r, 'completed'),
    newEvent('voucher.redeemed', { object: redeemedObject(v, r), order_id: r.orderId }, v),
  ];
}
