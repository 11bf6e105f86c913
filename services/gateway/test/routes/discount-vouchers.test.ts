// routes/discount-vouchers/: discount vouchers (`/api/v1/vouchers`) and their redemptions;
// not certificate vouchers (routes/certificate-vouchers/). Every route: its success shape,
// bad input refused before any call, 401 without a credential, 403 without its scope, and the
// vouchers service's errors in the versioned envelope.
import { afterAll, beforeAll, beforeEach, describe } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { discountVoucher, redemption } from './fixtures.js';
import { routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const REDEEM = { code: 'SAVE10', order_id: 'o_1', amount: 1000 };

describe('GET /api/v1/vouchers', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'GET', url: '/api/v1/vouchers?status=active&limit=5' },
    scope: 'transactions.read',
    wrongScope: 'users.read',
    call: 'listVouchers',
    answer: () => ({
      vouchers: [discountVoucher()],
      pagination: { page: 1, limit: 5, total: 1, total_pages: 1 },
    }),
    status: 200,
    shape: { vouchers: [{ id: 'v_1', code: 'SAVE10', uses_remaining: 5 }], pagination: { total_pages: 1 } },
    sent: { status: 'active', page: { page: 1, limit: 5 } },
    bad: { url: '/api/v1/vouchers?status=gone', param: 'status' },
    error: new HallmarkError('service_unavailable'),
  }));

describe('POST /api/v1/vouchers', () =>
  routeCase(() => h, 'vouchers', {
    req: {
      method: 'POST',
      url: '/api/v1/vouchers',
      payload: { code: 'SAVE10', type: 'percentage', value: 10 },
    },
    scope: 'transactions.create',
    wrongScope: 'transactions.read',
    call: 'createVoucher',
    answer: () => discountVoucher(),
    status: 201,
    shape: { id: 'v_1', code: 'SAVE10', type: 'percentage', value: 10, description: null },
    sent: { code: 'SAVE10', type: 'percentage', value: 10 },
    bad: { payload: { code: 'S!', type: 'percentage', value: 10 }, param: 'code' },
    error: new HallmarkError('voucher_code_exists'),
  }));

describe('GET /api/v1/vouchers/:voucher_id', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'GET', url: '/api/v1/vouchers/v_1' },
    scope: 'transactions.read',
    wrongScope: 'users.read',
    call: 'getVoucher',
    answer: () => discountVoucher(),
    status: 200,
    shape: { id: 'v_1', times_used: 0 },
    sent: { voucher_id: 'v_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('PATCH /api/v1/vouchers/:voucher_id', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'PATCH', url: '/api/v1/vouchers/v_1', payload: { max_uses: null } },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'updateVoucher',
    answer: () => discountVoucher({ max_uses: undefined, uses_remaining: undefined }),
    status: 200,
    shape: { id: 'v_1', max_uses: null },
    sent: { voucher_id: 'v_1', clear_max_uses: true },
    bad: { payload: { status: 'used' }, param: 'status' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('DELETE /api/v1/vouchers/:voucher_id', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'DELETE', url: '/api/v1/vouchers/v_1' },
    scope: 'transactions.delete',
    wrongScope: 'transactions.update',
    call: 'deleteVoucher',
    answer: () => ({ id: 'v_1', deleted: true }),
    status: 200,
    shape: { id: 'v_1', deleted: true },
    sent: { voucher_id: 'v_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/vouchers/redeem', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'POST', url: '/api/v1/vouchers/redeem', payload: REDEEM },
    scope: 'transactions.create',
    wrongScope: 'transactions.read',
    call: 'redeemVoucher',
    answer: () => redemption(),
    status: 200,
    shape: {
      success: true,
      discount_applied: 100,
      final_amount: 900,
      transaction_id: 'tx_1',
      replayed: false,
    },
    sent: { code: 'SAVE10', order_id: 'o_1', amount: 1000, currency: '' },
    bad: { payload: { code: 'SAVE10', order_id: 'o_1', amount: -1 }, param: 'amount' },
    error: new HallmarkError('voucher_max_uses_reached'),
  }));

describe('POST /api/v1/vouchers/validate', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'POST', url: '/api/v1/vouchers/validate', payload: REDEEM },
    scope: 'transactions.read',
    wrongScope: 'users.read',
    call: 'validateVoucher',
    answer: () => redemption({ transaction_id: '', redeemed_at: '' }),
    status: 200,
    shape: { success: true, transaction_id: null, redeemed_at: null },
    sent: { code: 'SAVE10', amount: 1000 },
    bad: { payload: { ...REDEEM, amount: -1 }, param: 'amount' },
    error: new HallmarkError('voucher_expired'),
  }));

describe('POST /api/v1/vouchers/:voucher_id/redemptions/:order_id/rollback', () =>
  routeCase(() => h, 'vouchers', {
    req: { method: 'POST', url: '/api/v1/vouchers/v_1/redemptions/o_1/rollback' },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'rollbackRedemption',
    answer: () => ({
      voucher: discountVoucher(),
      order_id: 'o_1',
      transaction_id: 'tx_1',
      rolled_back_at: '2025-01-02T00:00:00.000Z',
      already_rolled_back: false,
    }),
    status: 200,
    shape: { voucher: { id: 'v_1' }, order_id: 'o_1', already_rolled_back: false },
    sent: { voucher_id: 'v_1', order_id: 'o_1' },
    error: new HallmarkError('resource_not_found'),
  }));
