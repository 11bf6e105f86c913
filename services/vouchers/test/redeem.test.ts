// Redeem, validate and rollback on real PostgreSQL, through the handlers: results, refusals,
// idempotency, per-customer limits, and events committed with (and only with) the change.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { RedeemVoucherRequest } from '@hallmark/proto/vouchers/v1/vouchers';
import { CALL, expectError, outboxEvents, principal, startTestService, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

let n = 0;
async function voucher(p: Principal, over: Record<string, unknown> = {}) {
  return svc.api.createVoucher(
    { principal: p, code: `Redeem${++n}x`, type: 'percentage', value: 15, ...over },
    CALL,
  );
}
const redeem = (p: Principal, code: string, over: Partial<RedeemVoucherRequest> = {}) =>
  svc.api.redeemVoucher(
    { principal: p, code, order_id: `ord_${++n}`, amount: 999, currency: '', ...over },
    CALL,
  );
const validate = (p: Principal, code: string, over: Partial<RedeemVoucherRequest> = {}) =>
  svc.api.validateVoucher(
    { principal: p, code, order_id: `ord_${++n}`, amount: 999, currency: '', ...over },
    CALL,
  );
const get = (p: Principal, id: string) => svc.api.getVoucher({ principal: p, voucher_id: id }, CALL);
const eventsFor = async (type: string, orderId: string) =>
  (await outboxEvents(svc.pool, type)).filter((e) => e.data.object.metadata?.order_id === orderId);

describe('redeem', () => {
  it('returns the spec result (15% of 999 = 150 → 849) and spends one use', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 3 });
    const r = await redeem(p, v.code.toLowerCase(), { order_id: 'order_a' });
    expect(r).toMatchObject({
      success: true,
      voucher: { id: v.id, code: v.code, type: 'percentage', value: 15 },
      discount_applied: 150,
      original_amount: 999,
      final_amount: 849,
      currency: 'USD',
      order_id: 'order_a',
      replayed: false,
    });
    expect(r.transaction_id).toMatch(/^txn_/);
    expect(await get(p, v.id)).toMatchObject({ status: 'active', uses_remaining: 2, times_used: 1 });
  });

  it('a fixed discount never exceeds the amount; currency defaults to the voucher’s', async () => {
    const p = principal();
    const v = await voucher(p, { type: 'fixed_amount', value: 1500, currency: 'EUR' });
    expect(await redeem(p, v.code, { amount: 1000 })).toMatchObject({
      discount_applied: 1000,
      final_amount: 0,
      currency: 'EUR',
    });
    expect(await redeem(p, v.code, { amount: 4000, currency: 'eur' })).toMatchObject({
      discount_applied: 1500,
      final_amount: 2500,
    });
  });

  it('emits transaction.created (pending) and transaction.completed with the Transaction object, and voucher.redeemed', async () => {
    const p = principal({ livemode: false });
    const v = await voucher(p, { max_uses: 5 });
    const r = await redeem(p, v.code, { order_id: 'order_evt', customer_id: 'cus_42' });
    const created = await eventsFor('transaction.created', 'order_evt');
    const completed = await eventsFor('transaction.completed', 'order_evt');
    expect(created).toHaveLength(1);
    expect(completed).toHaveLength(1);
    const object = {
      id: r.transaction_id,
      type: 'voucher_redemption',
      amount: 150,
      currency: 'USD',
      user_id: 'cus_42',
      metadata: { order_id: 'order_evt', voucher_id: v.id, voucher_code: v.code },
      created_at: r.redeemed_at,
    };
    expect(created[0]).toMatchObject({
      enterprise_id: p.enterprise_id,
      livemode: false,
      data: { object: { ...object, status: 'pending' } },
    });
    expect(completed[0]).toMatchObject({
      livemode: false,
      data: { object: { ...object, status: 'completed' } },
    });
    expect(typeof created[0]!.data.object.description).toBe('string');
    const redeemed = (await outboxEvents(svc.pool, 'voucher.redeemed')).filter(
      (e) => e.data.order_id === 'order_evt',
    );
    expect(redeemed).toHaveLength(1);
    expect(redeemed[0]).toMatchObject({
      livemode: false,
      data: {
        object: { id: v.id, transaction_id: r.transaction_id, discount_applied: 150, final_amount: 849 },
      },
    });
  });

  it("user_id is the principal's actor when no customer is named", async () => {
    const p = principal({ actorId: 'user_abc' });
    const v = await voucher(p);
    await redeem(p, v.code, { order_id: 'order_actor' });
    expect((await eventsFor('transaction.completed', 'order_actor'))[0]!.data.object.user_id).toBe(
      'user_abc',
    );
  });

  it('one statement (uses to spare) and one transaction (the last use) store and emit the same things', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 2 });
    const fast = await redeem(p, v.code, { order_id: 'order_fast', customer_id: 'cus_f' });
    expect(await get(p, v.id)).toMatchObject({ status: 'active', uses_remaining: 1, times_used: 1 });
    const last = await redeem(p, v.code, { order_id: 'order_last' });
    expect(await get(p, v.id)).toMatchObject({ status: 'used', uses_remaining: 0, times_used: 2 });

    const { rows } = await svc.pool.query(
      `SELECT r.order_id, r.transaction_id, r.customer_id, r.user_id, r.amount, r.discount_applied, r.currency,
         r.created_at, r.voucher_version, r.enterprise_id, r.livemode
       FROM redemptions r WHERE r.voucher_id = $1 ORDER BY r.voucher_version`,
      [v.id],
    );
    expect(rows.map((r) => r.order_id)).toEqual(['order_fast', 'order_last']);
    expect(rows[0]).toMatchObject({
      transaction_id: fast.transaction_id,
      customer_id: 'cus_f',
      user_id: 'cus_f',
      amount: 999,
      discount_applied: 150,
      currency: 'USD',
      enterprise_id: p.enterprise_id,
      livemode: true,
    });
    expect(rows[0].created_at.toISOString()).toBe(fast.redeemed_at);
    expect(rows[1].created_at.toISOString()).toBe(last.redeemed_at);
    // Each redemption carries the voucher version it produced: consecutive, after the creation's.
    expect(rows.map((r) => r.voucher_version)).toEqual([2, 3]);

    for (const r of [fast, last]) {
      for (const type of ['transaction.created', 'transaction.completed']) {
        const [e] = (await outboxEvents(svc.pool, type)).filter((x) => x.data.object.id === r.transaction_id);
        expect(e!.data.object).toMatchObject({ amount: 150, created_at: r.redeemed_at });
      }
      const redeemed = (await outboxEvents(svc.pool, 'voucher.redeemed')).filter(
        (x) => x.data.object.transaction_id === r.transaction_id,
      );
      expect(redeemed.map((x) => x.data.object.redeemed_at)).toEqual([r.redeemed_at]);
    }
    // Only the last use changed the status, so only it emitted voucher.updated.
    const updated = (await outboxEvents(svc.pool, 'voucher.updated')).filter(
      (e) => e.data.object.id === v.id,
    );
    expect(updated.map((e) => [e.data.object.status, e.data.object.times_used])).toEqual([['used', 2]]);
    // A replay of either answers its stored result.
    expect(await redeem(p, v.code, { order_id: 'order_fast', customer_id: 'cus_f' })).toEqual({
      ...fast,
      replayed: true,
    });
  });

  it('the last use moves the voucher to used; the next is voucher_max_uses_reached with transaction.failed', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 1 });
    await redeem(p, v.code);
    expect(await get(p, v.id)).toMatchObject({ status: 'used', uses_remaining: 0 });
    const err = await expectError(
      redeem(p, v.code, { order_id: 'order_over' }),
      'voucher_max_uses_reached',
      'code',
    );
    expect(err.httpStatus).toBe(422);
    const failed = await eventsFor('transaction.failed', 'order_over');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data.object).toMatchObject({
      status: 'failed',
      type: 'voucher_redemption',
      metadata: { failure_code: 'voucher_max_uses_reached' },
    });
    // Nothing of the refused redemption itself committed: its pending/completed events rolled back with it.
    expect(await eventsFor('transaction.created', 'order_over')).toHaveLength(0);
    expect(await eventsFor('transaction.completed', 'order_over')).toHaveLength(0);
    const became = (await outboxEvents(svc.pool, 'voucher.updated')).filter((e) => e.data.object.id === v.id);
    expect(became.map((e) => e.data.object.status)).toEqual(['used']);
  });

  it('refuses inactive (422) and unknown codes (404, no transaction.failed: no voucher exists)', async () => {
    const p = principal();
    const v = await voucher(p);
    await svc.api.updateVoucher(
      { principal: p, voucher_id: v.id, status: 'inactive', clear_max_uses: false },
      CALL,
    );
    await expectError(redeem(p, v.code, { order_id: 'order_inactive' }), 'voucher_inactive', 'code');
    expect(await eventsFor('transaction.failed', 'order_inactive')).toHaveLength(1);
    const nf = await expectError(
      redeem(p, 'NoSuchCode', { order_id: 'order_nf' }),
      'voucher_not_found',
      'code',
    );
    expect(nf.httpStatus).toBe(404);
    expect(await eventsFor('transaction.failed', 'order_nf')).toHaveLength(0);
  });

  it('test mode redeems only test-mode vouchers, and another enterprise cannot redeem at all', async () => {
    const live = principal();
    const v = await voucher(live);
    await expectError(redeem({ ...live, livemode: false }, v.code), 'voucher_not_found', 'code');
    await expectError(redeem(principal(), v.code), 'voucher_not_found', 'code');
    expect((await get(live, v.id)).times_used).toBe(0);
  });

  it('a voucher bound to a currency refuses other currencies (param currency) and says so in transaction.failed', async () => {
    const p = principal();
    const v = await voucher(p, { type: 'fixed_amount', value: 100, currency: 'GBP' });
    await expectError(
      redeem(p, v.code, { currency: 'USD', order_id: 'order_ccy' }),
      'parameter_invalid',
      'currency',
    );
    expect(await eventsFor('transaction.failed', 'order_ccy')).toHaveLength(1);
    expect((await get(p, v.id)).times_used).toBe(0);
  });
});

describe('a voucher redeemed before (its terms remembered, no read before the statement)', () => {
  it('is refused once inactive, used up or deleted, redeems again when active, and replays still answer', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 3 });
    const first = await redeem(p, v.code, { order_id: 'order_known_1' });
    await expect(redeem(p, v.code, { order_id: 'order_known_1' })).resolves.toEqual({
      ...first,
      replayed: true,
    });
    const patch = (status: string) =>
      svc.api.updateVoucher({ principal: p, voucher_id: v.id, status, clear_max_uses: false }, CALL);
    await patch('inactive');
    await expectError(redeem(p, v.code, { order_id: 'order_known_2' }), 'voucher_inactive', 'code');
    expect(await eventsFor('transaction.failed', 'order_known_2')).toHaveLength(1);
    await patch('active');
    await redeem(p, v.code); // the second use
    await redeem(p, v.code); // the last: the voucher is used
    expect(await get(p, v.id)).toMatchObject({ status: 'used', times_used: 3 });
    await expectError(redeem(p, v.code), 'voucher_max_uses_reached', 'code');

    const other = await voucher(p, { code: 'KnownGone1', type: 'fixed_amount', value: 100 });
    await redeem(p, 'KNOWNGONE1');
    await svc.api.deleteVoucher({ principal: p, voucher_id: other.id }, CALL);
    await expectError(redeem(p, 'knowngone1'), 'voucher_not_found', 'code');
    // Its code taken by a new voucher: the new one's terms, not the remembered ones.
    const next = await voucher(p, { code: 'KnownGone1', type: 'percentage', value: 20 });
    expect(await redeem(p, 'KnownGone1', { amount: 1000 })).toMatchObject({
      voucher: { id: next.id, type: 'percentage', value: 20 },
      discount_applied: 200,
    });
  });

  it('still refuses a currency it is not bound to, and another mode or enterprise still cannot redeem it', async () => {
    const p = principal();
    const v = await voucher(p, { type: 'fixed_amount', value: 100, currency: 'GBP' });
    await redeem(p, v.code, { currency: 'GBP' });
    await expectError(redeem(p, v.code, { currency: 'USD' }), 'parameter_invalid', 'currency');
    await expectError(redeem({ ...p, livemode: false }, v.code), 'voucher_not_found', 'code');
    await expectError(redeem({ ...principal(), actor_id: p.actor_id }, v.code), 'voucher_not_found', 'code');
    expect((await get(p, v.id)).times_used).toBe(1);
  });
});

describe('idempotency per (voucher, order_id)', () => {
  it('a replay returns the original result, consumes nothing and emits nothing', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 2 });
    const first = await redeem(p, v.code, { order_id: 'order_replay' });
    const before = (await outboxEvents(svc.pool)).length;
    const again = await redeem(p, v.code, { order_id: 'order_replay' });
    expect(again).toEqual({ ...first, replayed: true });
    expect((await get(p, v.id)).times_used).toBe(1);
    expect((await outboxEvents(svc.pool)).length).toBe(before);
  });

  it('a replay still answers after the voucher became inactive or used up', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 1 });
    const first = await redeem(p, v.code, { order_id: 'order_late_replay' });
    await svc.api.updateVoucher(
      { principal: p, voucher_id: v.id, status: 'inactive', clear_max_uses: false },
      CALL,
    );
    await expect(redeem(p, v.code, { order_id: 'order_late_replay' })).resolves.toEqual({
      ...first,
      replayed: true,
    });
  });

  it('a replay with a different amount, currency or customer is a 409 on order_id', async () => {
    const p = principal();
    const v = await voucher(p);
    await redeem(p, v.code, { order_id: 'order_conflict' });
    await expectError(
      redeem(p, v.code, { order_id: 'order_conflict', amount: 1000 }),
      'resource_already_exists',
      'order_id',
    );
    await expectError(
      redeem(p, v.code, { order_id: 'order_conflict', currency: 'EUR' }),
      'resource_already_exists',
      'order_id',
    );
    await expectError(
      redeem(p, v.code, { order_id: 'order_conflict', customer_id: 'c1' }),
      'resource_already_exists',
      'order_id',
    );
    expect((await get(p, v.id)).times_used).toBe(1);
  });
});

describe('validate (dry run)', () => {
  it('gives the redeem answer and consumes nothing, emits nothing', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 1 });
    const before = (await outboxEvents(svc.pool)).length;
    const dry = await validate(p, v.code, { order_id: 'order_dry' });
    expect(dry).toMatchObject({
      success: true,
      discount_applied: 150,
      final_amount: 849,
      transaction_id: '',
      replayed: false,
    });
    expect((await get(p, v.id)).times_used).toBe(0);
    expect((await outboxEvents(svc.pool)).length).toBe(before);
    const real = await redeem(p, v.code, { order_id: 'order_dry' });
    expect({ ...real, transaction_id: '', redeemed_at: '' }).toEqual(dry);
    // The same order now answers with the stored result; another order with the refusal.
    await expect(validate(p, v.code, { order_id: 'order_dry' })).resolves.toEqual({
      ...real,
      replayed: true,
    });
    await expectError(validate(p, v.code), 'voucher_max_uses_reached', 'code');
    await expectError(validate(p, 'Nope1234'), 'voucher_not_found', 'code');
    expect(await eventsFor('transaction.failed', 'order_dry')).toHaveLength(0);
  });
});

describe('max_uses_per_customer', () => {
  it('limits each customer, needs customer_id, and a rollback frees the customer’s use', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses_per_customer: 1 });
    await expectError(redeem(p, v.code), 'parameter_missing', 'customer_id');
    await redeem(p, v.code, { customer_id: 'cus_a', order_id: 'order_ca1' });
    await expectError(
      validate(p, v.code, { customer_id: 'cus_a' }),
      'voucher_max_uses_reached',
      'customer_id',
    );
    await expectError(
      redeem(p, v.code, { customer_id: 'cus_a', order_id: 'order_ca2' }),
      'voucher_max_uses_reached',
      'customer_id',
    );
    expect(await eventsFor('transaction.failed', 'order_ca2')).toHaveLength(1);
    // This refusal came after the conditional UPDATE and the outbox writes: all rolled back together.
    expect(await eventsFor('transaction.created', 'order_ca2')).toHaveLength(0);
    expect(
      (await outboxEvents(svc.pool, 'voucher.redeemed')).filter((e) => e.data.order_id === 'order_ca2'),
    ).toHaveLength(0);
    expect((await get(p, v.id)).times_used).toBe(1);
    await redeem(p, v.code, { customer_id: 'cus_b' });
    expect((await get(p, v.id)).times_used).toBe(2);
    await svc.api.rollbackRedemption({ principal: p, voucher_id: v.id, order_id: 'order_ca1' }, CALL);
    await expect(redeem(p, v.code, { customer_id: 'cus_a', order_id: 'order_ca3' })).resolves.toMatchObject({
      success: true,
    });
  });

  it('holds under concurrency: 20 parallel orders of one customer with a limit of 2 → exactly 2', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses_per_customer: 2 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        redeem(p, v.code, { customer_id: 'cus_rush', order_id: `rush_${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect((await get(p, v.id)).times_used).toBe(2);
  });
});

describe('rollback', () => {
  it('gives the use back once, moves used → active, emits voucher.updated and transaction.updated (reversed)', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 1 });
    const r = await redeem(p, v.code, { order_id: 'order_refund' });
    expect((await get(p, v.id)).status).toBe('used');
    const rb = await svc.api.rollbackRedemption(
      { principal: p, voucher_id: v.id, order_id: 'order_refund' },
      CALL,
    );
    expect(rb).toMatchObject({
      order_id: 'order_refund',
      transaction_id: r.transaction_id,
      already_rolled_back: false,
    });
    expect(rb.voucher).toMatchObject({ status: 'active', uses_remaining: 1, times_used: 0 });
    const again = await svc.api.rollbackRedemption(
      { principal: p, voucher_id: v.id, order_id: 'order_refund' },
      CALL,
    );
    expect(again).toMatchObject({ already_rolled_back: true, rolled_back_at: rb.rolled_back_at });
    expect((await get(p, v.id)).times_used).toBe(0);
    const reversed = await eventsFor('transaction.updated', 'order_refund');
    expect(reversed).toHaveLength(1);
    expect(reversed[0]!.data.object).toMatchObject({ id: r.transaction_id, status: 'reversed' });
  });

  it('the rolled-back order can redeem again, as a new transaction', async () => {
    const p = principal();
    const v = await voucher(p, { max_uses: 1 });
    const first = await redeem(p, v.code, { order_id: 'order_again' });
    await svc.api.rollbackRedemption({ principal: p, voucher_id: v.id, order_id: 'order_again' }, CALL);
    const second = await redeem(p, v.code, { order_id: 'order_again', amount: 2000 });
    expect(second).toMatchObject({ replayed: false, original_amount: 2000, discount_applied: 300 });
    expect(second.transaction_id).not.toBe(first.transaction_id);
    expect(await get(p, v.id)).toMatchObject({ status: 'used', times_used: 1 });
    await expect(redeem(p, v.code, { order_id: 'order_again', amount: 2000 })).resolves.toEqual({
      ...second,
      replayed: true,
    });
  });

  it('unknown orders and other tenants are not found', async () => {
    const p = principal();
    const v = await voucher(p);
    await redeem(p, v.code, { order_id: 'order_mine' });
    await expectError(
      svc.api.rollbackRedemption({ principal: p, voucher_id: v.id, order_id: 'nope' }, CALL),
      'resource_not_found',
    );
    await expectError(
      svc.api.rollbackRedemption({ principal: principal(), voucher_id: v.id, order_id: 'order_mine' }, CALL),
      'resource_not_found',
    );
    await expectError(
      svc.api.rollbackRedemption(
        { principal: { ...p, livemode: false }, voucher_id: v.id, order_id: 'order_mine' },
        CALL,
      ),
      'resource_not_found',
    );
    expect((await get(p, v.id)).times_used).toBe(1);
  });
});
