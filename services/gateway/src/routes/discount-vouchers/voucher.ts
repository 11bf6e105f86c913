// A discount voucher's public shape (spec › Resources › Discount voucher), defined once: every
// endpoint that answers with a voucher serialises it with this schema, the document shows it
// as the `Voucher` component, and `presentVoucher` builds it from the service's record.
import type { Voucher as VoucherRecord } from '@hallmark/proto/vouchers/v1/vouchers';
import { defineResource } from '../../endpoint/resource.js';
import { bool, int, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const voucherId = Type.String({ pattern: '^vouch_', maxLength: 64 });
export const voucherType = oneOf(['percentage', 'fixed_amount']);

export const Voucher = defineResource(
  'Voucher',
  Type.Object(
    {
      id: voucherId,
      code: str(32),
      type: voucherType,
      value: Type.Number({
        description: '1–100 for percentage, up to two decimals (12.5); whole minor units for fixed_amount',
      }),
      status: oneOf(['active', 'expired', 'used', 'inactive']),
      uses_remaining: Type.Optional(nullable(int('Null when unlimited'))),
      max_uses: Type.Optional(nullable(int('Null means unlimited'))),
      expires_at: Type.Optional(nullable(time)),
      created_at: time,
      updated_at: Type.Optional(time),
      description: Type.Optional(nullable(str(500))),
      currency: Type.Optional(
        nullable(Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: 'Capitals (`USD`)' })),
      ),
      max_uses_per_customer: Type.Optional(nullable(int())),
      times_used: Type.Optional(int()),
      livemode: bool,
    },
    { description: 'A discount voucher (spec › Resources › Discount voucher)' },
  ),
  {
    example: {
      id: 'vouch_4Q2m9XbT7cLp0aZ1yN8kVw3e',
      code: 'SUMMER2025',
      type: 'percentage',
      value: 20,
      status: 'active',
      uses_remaining: 99,
      max_uses: 100,
      expires_at: '2025-09-30T23:59:59Z',
      created_at: '2025-06-01T10:00:00Z',
      updated_at: '2025-06-02T08:30:00Z',
      description: 'Summer sale',
      currency: null,
      max_uses_per_customer: null,
      times_used: 1,
      livemode: true,
    },
  },
);

export function presentVoucher(v: VoucherRecord): Static<typeof Voucher> {
  return {
    id: v.id,
    code: v.code,
    type: v.type,
    value: v.value,
    status: v.status,
    uses_remaining: v.uses_remaining ?? null,
    max_uses: v.max_uses ?? null,
    expires_at: v.expires_at ?? null,
    created_at: v.created_at,
    updated_at: v.updated_at,
    description: v.description ?? null,
    currency: v.currency ?? null,
    max_uses_per_customer: v.max_uses_per_customer ?? null,
    times_used: v.times_used,
    livemode: v.livemode,
  };
}
