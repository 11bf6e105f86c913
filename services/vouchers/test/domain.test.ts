// Pure rules: validation (each failure names its param), discount math, the state table.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError, newId, type VoucherId } from '@hallmark/kit';
import { applyPatch, computeDiscount, refusalFor, statusAfterRollback } from '../src/domain/rules.js';
import {
  parseCreate,
  parseList,
  parseRedeem,
  parseTimestamp,
  parseUpdate,
  type CreateInput,
} from '../src/domain/validation.js';
import { effectiveStatus, toView, type VoucherRecord } from '../src/domain/voucher.js';

const NOW = new Date('2030-06-01T12:00:00Z');
const valid: CreateInput = { code: 'SUMMER25', type: 'percentage', value: 25 };

function failure(fn: () => unknown): { code: string; param: string | undefined } {
  try {
    fn();
  } catch (err) {
    if (err instanceof HallmarkError) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('expected a HallmarkError');
}

function voucher(over: Partial<VoucherRecord> = {}): VoucherRecord {
  return {
    id: newId('voucher') as VoucherId,
    enterpriseId: newId('enterprise'),
    livemode: true,
    code: 'SAVE10',
    type: 'percentage',
    value: 10,
    currency: null,
    status: 'active',
    maxUses: null,
    maxUsesPerCustomer: null,
    timesUsed: 0,
    expiresAt: null,
    description: null,
    version: 1,
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

describe('create validation: each rule names its param', () => {
  it('accepts a minimal valid voucher, keeping the code as given', () => {
    expect(parseCreate({ ...valid, code: 'SuMmEr25' }, NOW)).toMatchObject({
      code: 'SuMmEr25',
      maxUses: null,
      expiresAt: null,
    });
  });

  it.each([
    ['code missing', { code: undefined }, 'parameter_missing', 'code'],
    ['code too short (3)', { code: 'ABC' }, 'parameter_invalid', 'code'],
    ['code too long (33)', { code: 'A'.repeat(33) }, 'parameter_invalid', 'code'],
    ['code not alphanumeric', { code: 'SAVE-10' }, 'parameter_invalid', 'code'],
    ['code with a space', { code: 'SAVE 10' }, 'parameter_invalid', 'code'],
    ['code with a non-ASCII letter', { code: 'SAVÉ10' }, 'parameter_invalid', 'code'],
    ['type missing', { type: undefined }, 'parameter_missing', 'type'],
    ['type unknown', { type: 'bogo' }, 'parameter_invalid', 'type'],
    ['value missing', { value: undefined }, 'parameter_missing', 'value'],
    ['percentage 0', { value: 0 }, 'parameter_invalid', 'value'],
    ['percentage 101', { value: 101 }, 'parameter_invalid', 'value'],
    ['percentage with three decimals', { value: 12.345 }, 'parameter_invalid', 'value'],
    ['percentage below 1', { value: 0.5 }, 'parameter_invalid', 'value'],
    ['fixed amount 0', { type: 'fixed_amount', value: 0 }, 'parameter_invalid', 'value'],
    ['fixed amount negative', { type: 'fixed_amount', value: -500 }, 'parameter_invalid', 'value'],
    [
      'fixed amount fractional minor units',
      { type: 'fixed_amount', value: 9.99 },
      'parameter_invalid',
      'value',
    ],
    ['max_uses 0', { maxUses: 0 }, 'parameter_invalid', 'max_uses'],
    ['max_uses negative', { maxUses: -1 }, 'parameter_invalid', 'max_uses'],
    ['max_uses fractional', { maxUses: 1.5 }, 'parameter_invalid', 'max_uses'],
    ['max_uses_per_customer 0', { maxUsesPerCustomer: 0 }, 'parameter_invalid', 'max_uses_per_customer'],
    ['expires_at not a date', { expiresAt: 'tomorrow' }, 'parameter_invalid', 'expires_at'],
    [
      'expires_at without a time zone',
      { expiresAt: '2031-01-01T00:00:00' },
      'parameter_invalid',
      'expires_at',
    ],
    [
      'expires_at on a day that does not exist',
      { expiresAt: '2031-02-30T00:00:00Z' },
      'parameter_invalid',
      'expires_at',
    ],
    ['expires_at in the past', { expiresAt: '2030-06-01T11:59:59Z' }, 'parameter_invalid', 'expires_at'],
    ['expires_at now', { expiresAt: '2030-06-01T12:00:00Z' }, 'parameter_invalid', 'expires_at'],
    ['description over 500 characters', { description: 'x'.repeat(501) }, 'parameter_invalid', 'description'],
    ['currency not three letters', { currency: 'EURO' }, 'parameter_invalid', 'currency'],
  ] as [string, Partial<CreateInput>, string, string][])('%s → %s (%s)', (_name, over, code, param) => {
    expect(failure(() => parseCreate({ ...valid, ...over }, NOW))).toEqual({ code, param });
  });

  it('accepts the boundaries: 4 and 32 characters, 1 and 100 percent, 500-character description', () => {
    expect(() => parseCreate({ ...valid, code: 'A1b2' }, NOW)).not.toThrow();
    expect(() => parseCreate({ ...valid, code: 'Z'.repeat(32) }, NOW)).not.toThrow();
    expect(() => parseCreate({ ...valid, value: 1 }, NOW)).not.toThrow();
    expect(() => parseCreate({ ...valid, value: 100 }, NOW)).not.toThrow();
    expect(() => parseCreate({ ...valid, description: 'é'.repeat(500) }, NOW)).not.toThrow();
  });

  it('accepts a fixed amount above 100 minor units and an ISO 8601 expiry with an offset', () => {
    const v = parseCreate(
      {
        ...valid,
        type: 'fixed_amount',
        value: 2500,
        expiresAt: '2030-06-01T14:00:01+02:00',
        currency: 'eur',
      },
      NOW,
    );
    expect(v).toMatchObject({ value: 2500, currency: 'EUR', expiresAt: new Date('2030-06-01T12:00:01Z') });
  });

  it('parses RFC 3339 timestamps strictly', () => {
    expect(parseTimestamp('2031-12-31T23:59:59.123456Z')?.toISOString()).toBe('2031-12-31T23:59:59.123Z');
    expect(parseTimestamp('2031-12-31T24:00:00Z')).toBeNull();
    expect(parseTimestamp('2031-13-01T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2031-01-01T00:00:00+25:00')).toBeNull();
    expect(parseTimestamp('2032-02-29T00:00:00Z')).not.toBeNull(); // leap year
  });
});

describe('update, redeem and list validation', () => {
  it.each([
    ['status expired cannot be set', { status: 'expired' }, 'parameter_invalid', 'status'],
    ['status used cannot be set', { status: 'used' }, 'parameter_invalid', 'status'],
    ['max_uses 0', { maxUses: 0 }, 'parameter_invalid', 'max_uses'],
    ['max_uses set and cleared', { maxUses: 5, clearMaxUses: true }, 'parameter_invalid', 'max_uses'],
    ['empty patch', {}, 'parameter_missing', 'status'],
  ])('PATCH %s', (_name, input, code, param) => {
    expect(failure(() => parseUpdate(input))).toEqual({ code, param });
  });

  it('PATCH clear_max_uses means unlimited', () => {
    expect(parseUpdate({ clearMaxUses: true })).toEqual({ maxUses: null });
  });

  const redeem = { code: 'SAVE10', orderId: 'order_1', amount: 1000 };
  it.each([
    ['code missing', { code: '' }, 'parameter_missing', 'code'],
    ['order_id missing', { orderId: undefined }, 'parameter_missing', 'order_id'],
    ['order_id too long', { orderId: 'o'.repeat(256) }, 'parameter_invalid', 'order_id'],
    ['amount 0', { amount: 0 }, 'parameter_invalid', 'amount'],
    ['amount negative', { amount: -1 }, 'parameter_invalid', 'amount'],
    ['amount fractional', { amount: 10.5 }, 'parameter_invalid', 'amount'],
    ['currency not three letters', { currency: 'US' }, 'parameter_invalid', 'currency'],
    ['customer_id with a control character', { customerId: 'cus\n1' }, 'parameter_invalid', 'customer_id'],
  ])('redeem %s', (_name, over, code, param) => {
    expect(failure(() => parseRedeem({ ...redeem, ...over }))).toEqual({ code, param });
  });

  it('redeem takes the spec’s body without an amount (amount null)', () => {
    expect(parseRedeem({ code: 'SAVE10', orderId: 'order_1' })).toMatchObject({ amount: null });
  });

  it('a percentage value is any number from 1 to 100 with at most two decimals (the spec types it a number)', () => {
    for (const value of [1, 12.5, 33.33, 99.99, 100])
      expect(parseCreate({ code: 'SAVE10', type: 'percentage', value }, NOW).value).toBe(value);
  });

  it('redeem upper-cases the currency and leaves it null when not given', () => {
    expect(parseRedeem({ ...redeem, currency: 'eur' }).currency).toBe('EUR');
    expect(parseRedeem(redeem).currency).toBeNull();
  });

  it('list defaults to page 1, limit 20; limit is 1..100; status must be a known one', () => {
    expect(parseList({})).toEqual({ page: 1, limit: 20, status: null });
    expect(parseList({ page: 3, limit: 100, status: 'inactive' })).toEqual({
      page: 3,
      limit: 100,
      status: 'inactive',
    });
    expect(failure(() => parseList({ limit: 101 }))).toEqual({ code: 'parameter_invalid', param: 'limit' });
    expect(failure(() => parseList({ limit: -1 }))).toEqual({ code: 'parameter_invalid', param: 'limit' });
    expect(failure(() => parseList({ page: -2 }))).toEqual({ code: 'parameter_invalid', param: 'page' });
    expect(failure(() => parseList({ status: 'deleted' }))).toEqual({
      code: 'parameter_invalid',
      param: 'status',
    });
  });
});

describe('discount math: integers only, half-up, never above the amount', () => {
  it.each([
    [15, 999, 150], // 149.85 → 150
    [10, 125, 13], // 12.5 → 13 (half-up)
    [10, 124, 12], // 12.4 → 12
    [10, 115, 12], // 11.5 → 12
    [50, 1, 1], // 0.5 → 1
    [50, 3, 2], // 1.5 → 2
    [1, 49, 0], // 0.49 → 0
    [1, 50, 1], // 0.5 → 1
    [25, 1050, 263], // 262.5 → 263
    [33, 100, 33],
    [100, 4321, 4321],
  ])('%i%% of %i = %i', (pct, amount, discount) => {
    expect(computeDiscount('percentage', pct, amount)).toBe(discount);
  });

  it('a percentage to the hundredth: 12.5% of 999 = 125 (124.875), 33.33% of 300 = 100 (99.99)', () => {
    expect(computeDiscount('percentage', 12.5, 999)).toBe(125);
    expect(computeDiscount('percentage', 33.33, 300)).toBe(100);
    expect(computeDiscount('percentage', 0.01 * 1234, 10_000)).toBe(1234);
  });

  it('without the order amount: a fixed amount discounts its value, a percentage is not computed (null)', () => {
    expect(computeDiscount('fixed_amount', 500, null)).toBe(500);
    expect(computeDiscount('percentage', 15, null)).toBeNull();
  });

  it('stays exact beyond 2^53 / 100', () => {
    const amount = Number.MAX_SAFE_INTEGER; // 9007199254740991
    expect(computeDiscount('percentage', 50, amount)).toBe(4503599627370496); // …495.5 → …496
  });

  it('a fixed discount never exceeds the order amount', () => {
    expect(computeDiscount('fixed_amount', 500, 1999)).toBe(500);
    expect(computeDiscount('fixed_amount', 500, 300)).toBe(300);
  });
});

describe('state table', () => {
  const past = new Date(NOW.getTime() - 1);

  it('active → expired is visible on read the moment expires_at passes', () => {
    expect(effectiveStatus(voucher({ expiresAt: NOW }), NOW)).toBe('expired');
    expect(effectiveStatus(voucher({ expiresAt: new Date(NOW.getTime() + 1) }), NOW)).toBe('active');
    expect(toView(voucher({ expiresAt: past }), NOW).status).toBe('expired');
  });

  it('uses_remaining equals max_uses at creation, null when unlimited', () => {
    expect(toView(voucher({ maxUses: 5 }), NOW).uses_remaining).toBe(5);
    expect(toView(voucher(), NOW).uses_remaining).toBeNull();
  });

  it('redemption refusals follow the effective status', () => {
    expect(refusalFor(voucher(), NOW)).toBeNull();
    expect(refusalFor(voucher({ status: 'inactive' }), NOW)).toBe('voucher_inactive');
    expect(refusalFor(voucher({ expiresAt: past }), NOW)).toBe('voucher_expired');
    expect(refusalFor(voucher({ status: 'expired' }), NOW)).toBe('voucher_expired');
    expect(refusalFor(voucher({ status: 'used', maxUses: 1, timesUsed: 1 }), NOW)).toBe(
      'voucher_max_uses_reached',
    );
  });

  it('active → inactive by PATCH, always (also from used)', () => {
    expect(applyPatch(voucher(), { status: 'inactive' }, NOW)).toEqual({
      status: 'inactive',
      maxUses: null,
      changed: true,
    });
    expect(
      applyPatch(voucher({ status: 'used', maxUses: 1, timesUsed: 1 }), { status: 'inactive' }, NOW).status,
    ).toBe('inactive');
  });

  it('inactive → active by PATCH, unless expired or out of uses', () => {
    expect(applyPatch(voucher({ status: 'inactive' }), { status: 'active' }, NOW).status).toBe('active');
    expect(
      failure(() => applyPatch(voucher({ status: 'inactive', expiresAt: past }), { status: 'active' }, NOW)),
    ).toEqual({
      code: 'voucher_expired',
      param: 'status',
    });
    expect(
      failure(() =>
        applyPatch(voucher({ status: 'inactive', maxUses: 2, timesUsed: 2 }), { status: 'active' }, NOW),
      ),
    ).toEqual({ code: 'voucher_max_uses_reached', param: 'status' });
  });

  it('lowering max_uses to or below the uses made → used (uses_remaining 0); raising it → active', () => {
    const v = voucher({ maxUses: 10, timesUsed: 4 });
    expect(applyPatch(v, { maxUses: 4 }, NOW)).toEqual({ status: 'used', maxUses: 4, changed: true });
    expect(applyPatch(v, { maxUses: 2 }, NOW).status).toBe('used');
    expect(toView({ ...v, status: 'used', maxUses: 2 }, NOW).uses_remaining).toBe(0);
    expect(
      applyPatch(voucher({ status: 'used', maxUses: 4, timesUsed: 4 }), { maxUses: 5 }, NOW).status,
    ).toBe('active');
    expect(
      applyPatch(voucher({ status: 'used', maxUses: 4, timesUsed: 4 }), { maxUses: null }, NOW).status,
    ).toBe('active');
  });

  it('max_uses changes keep inactive and expired as they are', () => {
    expect(applyPatch(voucher({ status: 'inactive', timesUsed: 3 }), { maxUses: 1 }, NOW).status).toBe(
      'inactive',
    );
    expect(applyPatch(voucher({ status: 'expired', timesUsed: 3 }), { maxUses: 1 }, NOW).status).toBe(
      'expired',
    );
  });

  it('an unchanged patch reports no change', () => {
    expect(applyPatch(voucher({ maxUses: 3 }), { maxUses: 3, status: 'active' }, NOW).changed).toBe(false);
  });

  it('rollback moves used back to active only when a use is free again', () => {
    expect(statusAfterRollback({ status: 'used', maxUses: 3, timesUsed: 2 })).toBe('active');
    expect(statusAfterRollback({ status: 'used', maxUses: 1, timesUsed: 3 })).toBe('used');
    expect(statusAfterRollback({ status: 'inactive', maxUses: 3, timesUsed: 0 })).toBe('inactive');
  });
});
