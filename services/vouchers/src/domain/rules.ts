// The voucher state machine (spec: States › Discount voucher status) and discount math.
//
//   (new) ──create──▶ active ──redeem, uses reach max_uses──▶ used
//   active ──expires_at passes──▶ expired (derived on read, persisted by the sweeper)
//   any ──PATCH status inactive──▶ inactive ──PATCH status active──▶ active | used
//   active/used ──PATCH max_uses──▶ used when times_used ≥ max_uses, else active
//   used ──rollback of a redemption──▶ active when a use is free again
//
// Moving out of `inactive` is not shown by the spec; we allow PATCH back to `active`
// (refused with voucher_expired / voucher_max_uses_reached when it could not redeem).
import { HallmarkError, type ErrorCode } from '@hallmark/kit/errors';
import type { VoucherPatch } from './validation.js';
import { effectiveStatus, type VoucherRecord, type VoucherStatus, type VoucherType } from './voucher.js';

export type RefusalCode = Extract<
  ErrorCode,
  'voucher_inactive' | 'voucher_expired' | 'voucher_max_uses_reached'
>;

/** Why this voucher cannot be redeemed now, or null when it can. */
export function refusalFor(
  v: Pick<VoucherRecord, 'status' | 'expiresAt' | 'maxUses' | 'timesUsed'>,
  now: Date,
): RefusalCode | null {
  switch (effectiveStatus(v, now)) {
    case 'inactive':
      return 'voucher_inactive';
    case 'expired':
      return 'voucher_expired';
    case 'used':
      return 'voucher_max_uses_reached';
    case 'active':
      return v.maxUses !== null && v.timesUsed >= v.maxUses ? 'voucher_max_uses_reached' : null;
  }
}

/**
 * Discount in minor units. Percentage rounds half-up to the minor unit in integer math, in
 * hundredths of a percent (15% of 999 = 149.85 → 150; 10% of 125 = 12.5 → 13; 12.5% of 999
 * = 124.875 → 125); a fixed amount never exceeds the order amount. BigInt keeps amount ×
 * percent exact beyond 2^53. Without the order amount (the spec's redeem body has none): a
 * fixed amount's discount is its value; a percentage's is not computed (null): the caller
 * applies value % to its order.
 */
export function computeDiscount(type: VoucherType, value: number, amount: number | null): number | null {
  if (type === 'percentage') {
    if (amount === null) return null;
    return Number((BigInt(amount) * BigInt(Math.round(value * 100)) + 5000n) / 10000n);
  }
  return amount === null ? value : Math.min(value, amount);
}

export interface UpdatedState {
  status: VoucherStatus;
  maxUses: number | null;
  changed: boolean;
}

/** The stored status and max_uses after a PATCH, or the error that refuses it. */
export function applyPatch(v: VoucherRecord, patch: VoucherPatch, now: Date): UpdatedState {
  const maxUses = patch.maxUses === undefined ? v.maxUses : patch.maxUses;
  const exhausted = maxUses !== null && v.timesUsed >= maxUses;
  let status: VoucherStatus = v.status;
  if (patch.status === 'inactive') {
    status = 'inactive';
  } else if (patch.status === 'active') {
    if (effectiveStatus({ status: 'active', expiresAt: v.expiresAt }, now) === 'expired') {
      throw new HallmarkError('voucher_expired', {
        param: 'status',
        message: 'An expired voucher cannot be made active.',
      });
    }
    if (exhausted) {
      throw new HallmarkError('voucher_max_uses_reached', {
        param: 'status',
        message: 'The voucher has no uses left; raise max_uses to make it active.',
      });
    }
    status = 'active';
  } else if (v.status === 'active' || v.status === 'used') {
    status = exhausted ? 'used' : 'active';
  }
  return { status, maxUses, changed: status !== v.status || maxUses !== v.maxUses };
}

/** Status after a redemption is given back (times_used already decreased). */
export function statusAfterRollback(
  v: Pick<VoucherRecord, 'status' | 'maxUses' | 'timesUsed'>,
): VoucherStatus {
  if (v.status === 'used' && (v.maxUses === null || v.timesUsed < v.maxUses)) return 'active';
  return v.status;
}
