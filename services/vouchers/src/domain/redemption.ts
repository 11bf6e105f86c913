// A redemption, its result (spec: Resources › Discount voucher, "Redemption result") and
// the Transaction object its versioned-surface events carry (spec: Events › Transaction).
import type { VoucherType } from './voucher.js';

/** A redemption as stored: enough to answer any replay with the original result. */
export interface RedemptionRecord {
  voucherId: string;
  orderId: string;
  transactionId: string;
  customerId: string | null;
  userId: string;
  /** Null when the request gave no order amount. */
  amount: number | null;
  currency: string;
  /** Null for a percentage voucher redeemed without an amount (the caller applies value %). */
  discountApplied: number | null;
  voucherVersion: number | null;
  createdAt: Date;
  rolledBackAt: Date | null;
}

export interface VoucherSummary {
  id: string;
  code: string;
  type: VoucherType;
  value: number;
}

export interface RedemptionResult {
  success: true;
  voucher: VoucherSummary;
  discount_applied: number | null;
  original_amount: number | null;
  final_amount: number | null;
  currency: string;
  order_id: string;
  /** Empty on a dry run of a new order. */
  transaction_id: string;
  redeemed_at: string;
  replayed: boolean;
}

/** The order amount after the discount; null unless both are known. */
export function finalAmount(r: { amount: number | null; discountApplied: number | null }): number | null {
  return r.amount === null || r.discountApplied === null ? null : r.amount - r.discountApplied;
}

export function redemptionResult(
  voucher: VoucherSummary,
  r: {
    orderId: string;
    amount: number | null;
    currency: string;
    discountApplied: number | null;
    transactionId?: string;
    createdAt?: Date;
  },
  replayed: boolean,
): RedemptionResult {
  return {
    success: true,
    voucher: { id: voucher.id, code: voucher.code, type: voucher.type, value: voucher.value },
    discount_applied: r.discountApplied,
    original_amount: r.amount,
    final_amount: finalAmount(r),
    currency: r.currency,
    order_id: r.orderId,
    transaction_id: r.transactionId ?? '',
    redeemed_at: r.createdAt?.toISOString() ?? '',
    replayed,
  };
}

/**
 * `voucher.redeemed` data.object: the voucher as the redemption result shows it plus what
 * this redemption did. Counters (times_used, uses_remaining) are left out on purpose: the
 * event is written before the voucher row is locked, to keep the lock short.
 */
export function redeemedObject(
  voucher: VoucherSummary & { enterpriseId: string; livemode: boolean },
  r: Pick<
    RedemptionRecord,
    'transactionId' | 'orderId' | 'amount' | 'currency' | 'discountApplied' | 'customerId' | 'createdAt'
  >,
): RedeemedObject {
  return {
    id: voucher.id,
    code: voucher.code,
    type: voucher.type,
    value: voucher.value,
    livemode: voucher.livemode,
    enterprise_id: voucher.enterpriseId,
    transaction_id: r.transactionId,
    order_id: r.orderId,
    customer_id: r.customerId,
    original_amount: r.amount,
    discount_applied: r.discountApplied,
    final_amount: finalAmount(r),
    currency: r.currency,
    redeemed_at: r.createdAt.toISOString(),
  };
}

export type RedeemedObject = {
  id: string;
  code: string;
  type: VoucherType;
  value: number;
  livemode: boolean;
  enterprise_id: string;
  transaction_id: string;
  order_id: string;
  customer_id: string | null;
  original_amount: number | null;
  discount_applied: number | null;
  final_amount: number | null;
  currency: string;
  redeemed_at: string;
};

export type TransactionStatus = 'pending' | 'completed' | 'failed' | 'reversed';

export interface TransactionObject {
  [k: string]: unknown;
  id: string;
  type: 'voucher_redemption';
  /** The discount applied, minor units; null for a percentage redeemed without an amount. */
  amount: number | null;
  currency: string;
  status: TransactionStatus;
  user_id: string;
  description: string;
  metadata: Record<string, unknown>;
  created_at: string;
}

export function transactionObject(
  voucher: VoucherSummary,
  r: {
    transactionId: string;
    orderId: string;
    amount: number | null;
    currency: string;
    discountApplied: number | null;
    userId: string;
    createdAt: Date;
  },
  status: TransactionStatus,
  extra: Record<string, unknown> = {},
): TransactionObject {
  return {
    id: r.transactionId,
    type: 'voucher_redemption',
    amount: r.discountApplied,
    currency: r.currency,
    status,
    user_id: r.userId,
    description: `Voucher ${voucher.code} on order ${r.orderId}`,
    metadata: {
      order_id: r.orderId,
      voucher_id: voucher.id,
      voucher_code: voucher.code,
      original_amount: r.amount,
      final_amount: finalAmount(r),
      ...extra,
    },
    created_at: r.createdAt.toISOString(),
  };
}
