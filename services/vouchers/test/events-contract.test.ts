// The vouchers service emits payloads its event contracts accept, whole (nothing stripped):
// each payload builder's output is parsed by the kit's schema for the type it is sent as.
import { describe, expect, it } from '@jest/globals';
import { EVENT_SCHEMAS, type VoucherId } from '@hallmark/kit';
import { redeemedObject, transactionObject } from '../src/domain/redemption.js';
import { toView, type VoucherRecord } from '../src/domain/voucher.js';

const now = new Date('2026-01-01T00:00:00Z');
const voucher: VoucherRecord = {
  id: 'vouch_000000000000000000000001' as VoucherId,
  enterpriseId: 'ent_1',
  livemode: true,
  code: 'SAVE10',
  type: 'percentage',
  value: 10,
  currency: null,
  status: 'active',
  maxUses: 5,
  maxUsesPerCustomer: null,
  timesUsed: 1,
  expiresAt: null,
  description: null,
  version: 2,
  createdAt: now,
  updatedAt: now,
};
const redemption = {
  voucherId: voucher.id,
  orderId: 'order_1',
  transactionId: 'txn_1',
  customerId: null,
  userId: 'user_1',
  amount: 1000,
  currency: 'USD',
  discountApplied: 100,
  createdAt: now,
};

describe('vouchers event payloads match their contracts', () => {
  it('discount_voucher.created and voucher.updated/deleted carry the voucher view', () => {
    const data = { object: { ...toView(voucher, now) } };
    for (const t of ['discount_voucher.created', 'voucher.updated', 'voucher.deleted'] as const)
      expect(EVENT_SCHEMAS[t].parse(data)).toEqual(data);
  });

  it('voucher.redeemed carries what the redemption did', () => {
    const data = { object: redeemedObject(voucher, redemption), order_id: 'order_1' };
    expect(EVENT_SCHEMAS['voucher.redeemed'].parse(data)).toEqual(data);
  });

  it('transaction.* carry the spec’s Transaction in every status', () => {
    for (const [t, status] of [
      ['transaction.created', 'pending'],
      ['transaction.completed', 'completed'],
      ['transaction.failed', 'failed'],
      ['transaction.updated', 'reversed'],
    ] as const) {
      const data = { object: transactionObject(voucher, redemption, status) };
      expect(EVENT_SCHEMAS[t].parse(data)).toEqual(data);
    }
  });
});
