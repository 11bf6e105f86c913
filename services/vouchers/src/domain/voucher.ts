// The discount voucher: its record, its effective status and the object others see
// (API, events). Pure: time comes in as an argument.
import { newEvent, type EventInput } from '@hallmark/kit/events';
import type { VoucherId } from '@hallmark/kit/ids';

export const VOUCHER_TYPES = ['percentage', 'fixed_amount'] as const;
export type VoucherType = (typeof VOUCHER_TYPES)[number];

export const VOUCHER_STATUSES = ['active', 'expired', 'used', 'inactive'] as const;
export type VoucherStatus = (typeof VOUCHER_STATUSES)[number];

/** Who acts, and on which slice of data: every query is scoped by both fields. */
export interface Scope {
  enterpriseId: string;
  livemode: boolean;
  /** `user_…` or `apikey_…`; the transaction's user_id when no customer is named. */
  actorId: string;
}

export interface VoucherRecord {
  id: VoucherId;
  enterpriseId: string;
  livemode: boolean;
  code: string;
  type: VoucherType;
  /** 1..100 for percentage (up to two decimals); whole minor units for fixed_amount. */
  value: number;
  currency: string | null;
  /** Stored status; `effectiveStatus` adds expiry that the sweeper has not persisted yet. */
  status: VoucherStatus;
  maxUses: number | null;
  maxUsesPerCustomer: number | null;
  timesUsed: number;
  expiresAt: Date | null;
  description: string | null;
  /** Bumped by every change of the row: the order of changes (and so of commits). */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What never changes after a voucher is created (updates touch only status and max_uses):
 * all a redemption's plan, row, events and answer read of it. Safe to keep between requests.
 */
export type VoucherTerms = Pick<
  VoucherRecord,
  'id' | 'enterpriseId' | 'livemode' | 'code' | 'type' | 'value' | 'currency' | 'maxUsesPerCustomer'
>;

/** Expiry shows the moment it passes, whether or not the sweeper has persisted it yet. */
export function effectiveStatus(v: Pick<VoucherRecord, 'status' | 'expiresAt'>, now: Date): VoucherStatus {
  if (v.status === 'active' && v.expiresAt !== null && v.expiresAt.getTime() <= now.getTime())
    return 'expired';
  return v.status;
}

export function usesRemaining(v: Pick<VoucherRecord, 'maxUses' | 'timesUsed'>): number | null {
  return v.maxUses === null ? null : Math.max(0, v.maxUses - v.timesUsed);
}

/** The voucher as the API and events show it (spec field names). */
export interface VoucherView {
  id: string;
  code: string;
  type: VoucherType;
  value: number;
  status: VoucherStatus;
  uses_remaining: number | null;
  max_uses: number | null;
  expires_at: string | null;
  created_at: string;
  description: string | null;
  livemode: boolean;
  enterprise_id: string;
  currency: string | null;
  max_uses_per_customer: number | null;
  times_used: number;
  updated_at: string;
}

export function toView(v: VoucherRecord, now: Date): VoucherView {
  return {
    id: v.id,
    code: v.code,
    type: v.type,
    value: v.value,
    status: effectiveStatus(v, now),
    uses_remaining: usesRemaining(v),
    max_uses: v.maxUses,
    expires_at: v.expiresAt?.toISOString() ?? null,
    created_at: v.createdAt.toISOString(),
    description: v.description,
    livemode: v.livemode,
    enterprise_id: v.enterpriseId,
    currency: v.currency,
    max_uses_per_customer: v.maxUsesPerCustomer,
    times_used: v.timesUsed,
    updated_at: v.updatedAt.toISOString(),
  };
}

/** A discount voucher's own event: the voucher as the API shows it, at `now`. */
export function voucherEvent(
  type: 'discount_voucher.created' | 'voucher.updated' | 'voucher.deleted',
  v: VoucherRecord,
  now: Date,
): EventInput<typeof type> {
  return newEvent(type, { object: { ...toView(v, now) } }, v);
}
