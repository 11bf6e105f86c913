// Create, read, list, update, delete and expiry on real PostgreSQL, through the handlers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@hallmark/kit';
import { ExpirySweeper } from '../src/workers/expiry-sweeper.js';
import {
  CALL,
  expectError,
  inOneHour,
  outboxEvents,
  principal,
  startTestService,
  type TestService,
} from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const create = (p = principal(), over: Record<string, unknown> = {}) =>
  svc.api.createVoucher(
    {
      principal: p,
      code: `C${Math.random().toString(36).slice(2, 12)}`,
      type: 'percentage',
      value: 10,
      ...over,
    },
    CALL,
  );

describe('create', () => {
  it('creates an active voucher with uses_remaining = max_uses and emits discount_voucher.created (a versioned webhook type) with tenancy', async () => {
    const p = principal({ livemode: false });
    const v = await create(p, {
      code: 'Welcome10',
      max_uses: 50,
      description: 'launch',
      expires_at: inOneHour(),
    });
    expect(v).toMatchObject({
      code: 'Welcome10',
      type: 'percentage',
      value: 10,
      status: 'active',
      uses_remaining: 50,
      max_uses: 50,
      times_used: 0,
      description: 'launch',
      livemode: false,
      enterprise_id: p.enterprise_id,
    });
    expect(v.id).toMatch(/^vouch_[0-9A-Za-z]{24}$/);
    const events = (await outboxEvents(svc.pool, 'discount_voucher.created')).filter(
      (e) => e.data.object.id === v.id,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      enterprise_id: p.enterprise_id,
      livemode: false,
      data: { object: { code: 'Welcome10' } },
    });
  });

  it('max_uses omitted means unlimited: max_uses and uses_remaining absent (JSON null)', async () => {
    const v = await create();
    expect(v.max_uses).toBeUndefined();
    expect(v.uses_remaining).toBeUndefined();
  });

  it('codes are unique per enterprise and mode, case-insensitively → voucher_code_exists (409)', async () => {
    const p = principal();
    await create(p, { code: 'Spring24' });
    const err = await expectError(create(p, { code: 'SPRING24' }), 'voucher_code_exists', 'code');
    expect(err.httpStatus).toBe(409);
    // The same code is free in test mode and in another enterprise.
    await expect(create({ ...p, livemode: false }, { code: 'spring24' })).resolves.toMatchObject({
      code: 'spring24',
    });
    await expect(create(principal(), { code: 'Spring24' })).resolves.toMatchObject({ code: 'Spring24' });
  });

  it('bad input is refused before any write', async () => {
    const p = principal();
    await expectError(create(p, { code: 'no' }), 'parameter_invalid', 'code');
    await expectError(create(p, { value: 101 }), 'parameter_invalid', 'value');
    await expectError(create(p, { value: undefined }), 'parameter_missing', 'value');
    await expectError(create(p, { expires_at: '2001-01-01T00:00:00Z' }), 'parameter_invalid', 'expires_at');
    await expectError(
      svc.api.createVoucher({ code: 'ABCD', type: 'percentage', value: 5 }, CALL),
      'parameter_missing',
      'principal',
    );
    const { rows } = await svc.pool.query(
      'SELECT count(*)::int AS n FROM vouchers WHERE enterprise_id = $1',
      [p.enterprise_id],
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('tenancy and test mode', () => {
  it("another enterprise's voucher, or a live voucher seen in test mode, is not found", async () => {
    const owner = principal();
    const v = await create(owner);
    for (const other of [principal(), { ...owner, livemode: false }]) {
      await expectError(
        svc.api.getVoucher({ principal: other, voucher_id: v.id }, CALL),
        'resource_not_found',
      );
      await expectError(
        svc.api.updateVoucher(
          { principal: other, voucher_id: v.id, status: 'inactive', clear_max_uses: false },
          CALL,
        ),
        'resource_not_found',
      );
      await expectError(
        svc.api.deleteVoucher({ principal: other, voucher_id: v.id }, CALL),
        'resource_not_found',
      );
      const list = await svc.api.listVouchers({ principal: other, status: '' }, CALL);
      expect(list.vouchers.map((x) => x.id)).not.toContain(v.id);
    }
    await expect(svc.api.getVoucher({ principal: owner, voucher_id: v.id }, CALL)).resolves.toMatchObject({
      id: v.id,
    });
  });

  it('a malformed id is not found (no lookup)', async () => {
    await expectError(
      svc.api.getVoucher({ principal: principal(), voucher_id: "x' OR 1=1" }, CALL),
      'resource_not_found',
    );
  });
});

describe('list', () => {
  it('pages newest first with total and total_pages, and filters by effective status', async () => {
    const p = principal();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await create(p));
    await svc.api.updateVoucher(
      { principal: p, voucher_id: made[1]!.id, status: 'inactive', clear_max_uses: false },
      CALL,
    );
    await svc.pool.query("UPDATE vouchers SET expires_at = now() - interval '1 second' WHERE id = $1", [
      made[2]!.id,
    ]);

    const page1 = await svc.api.listVouchers({ principal: p, page: { page: 1, limit: 2 }, status: '' }, CALL);
    expect(page1.pagination).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(page1.vouchers.map((v) => v.id)).toEqual([made[4]!.id, made[3]!.id]);
    const page3 = await svc.api.listVouchers({ principal: p, page: { page: 3, limit: 2 }, status: '' }, CALL);
    expect(page3.vouchers.map((v) => v.id)).toEqual([made[0]!.id]);
    const beyond = await svc.api.listVouchers(
      { principal: p, page: { page: 9, limit: 2 }, status: '' },
      CALL,
    );
    expect(beyond.vouchers).toEqual([]);

    const ids = async (status: string) =>
      (await svc.api.listVouchers({ principal: p, status }, CALL)).vouchers.map((v) => v.id).sort();
    expect(await ids('inactive')).toEqual([made[1]!.id]);
    expect(await ids('expired')).toEqual([made[2]!.id]);
    expect(await ids('active')).toEqual([made[0]!.id, made[3]!.id, made[4]!.id].sort());
    expect(await ids('used')).toEqual([]);
    const defaults = await svc.api.listVouchers({ principal: p, status: '' }, CALL);
    expect(defaults.pagination).toEqual({ page: 1, limit: 20, total: 5, total_pages: 1 });
  });

  it('refuses limit above 100 and unknown statuses, naming the param', async () => {
    await expectError(
      svc.api.listVouchers({ principal: principal(), page: { page: 1, limit: 101 }, status: '' }, CALL),
      'parameter_invalid',
      'limit',
    );
    await expectError(
      svc.api.listVouchers({ principal: principal(), status: 'gone' }, CALL),
      'parameter_invalid',
      'status',
    );
  });
});

describe('update', () => {
  it('moves active → inactive → active, emitting voucher.updated only on a change', async () => {
    const p = principal();
    const v = await create(p);
    const patch = (status: string) =>
      svc.api.updateVoucher({ principal: p, voucher_id: v.id, status, clear_max_uses: false }, CALL);
    expect((await patch('inactive')).status).toBe('inactive');
    expect((await patch('inactive')).status).toBe('inactive'); // idempotent
    expect((await patch('active')).status).toBe('active');
    const events = (await outboxEvents(svc.pool, 'voucher.updated')).filter((e) => e.data.object.id === v.id);
    expect(events.map((e) => e.data.object.status)).toEqual(['inactive', 'active']);
  });

  it('lowering max_uses below the uses made → used with uses_remaining 0; clearing it → active, unlimited', async () => {
    const p = principal();
    const v = await create(p, { max_uses: 10 });
    for (let i = 0; i < 3; i++) {
      await svc.api.redeemVoucher(
        { principal: p, code: v.code, order_id: `o${i}`, amount: 1000, currency: '' },
        CALL,
      );
    }
    const lowered = await svc.api.updateVoucher(
      { principal: p, voucher_id: v.id, max_uses: 2, clear_max_uses: false },
      CALL,
    );
    expect(lowered).toMatchObject({ status: 'used', uses_remaining: 0, max_uses: 2, times_used: 3 });
    await expectError(
      svc.api.redeemVoucher({ principal: p, code: v.code, order_id: 'o9', amount: 1000, currency: '' }, CALL),
      'voucher_max_uses_reached',
      'code',
    );
    const cleared = await svc.api.updateVoucher(
      { principal: p, voucher_id: v.id, clear_max_uses: true },
      CALL,
    );
    expect(cleared).toMatchObject({ status: 'active', times_used: 3 });
    expect(cleared.max_uses).toBeUndefined();
  });

  it('refuses statuses that are reached, not set, and reactivating an expired voucher', async () => {
    const p = principal();
    const v = await create(p);
    await expectError(
      svc.api.updateVoucher({ principal: p, voucher_id: v.id, status: 'used', clear_max_uses: false }, CALL),
      'parameter_invalid',
      'status',
    );
    await svc.api.updateVoucher(
      { principal: p, voucher_id: v.id, status: 'inactive', clear_max_uses: false },
      CALL,
    );
    await svc.pool.query("UPDATE vouchers SET expires_at = now() - interval '1 second' WHERE id = $1", [
      v.id,
    ]);
    await expectError(
      svc.api.updateVoucher(
        { principal: p, voucher_id: v.id, status: 'active', clear_max_uses: false },
        CALL,
      ),
      'voucher_expired',
      'status',
    );
  });
});

describe('delete', () => {
  it('deletes permanently with its redemptions, emits voucher.deleted; a second delete is not found; the code is free again', async () => {
    const p = principal();
    const v = await create(p, { code: 'GoneSoon' });
    await svc.api.redeemVoucher(
      { principal: p, code: 'GoneSoon', order_id: 'o1', amount: 500, currency: '' },
      CALL,
    );
    await expect(svc.api.deleteVoucher({ principal: p, voucher_id: v.id }, CALL)).resolves.toEqual({
      id: v.id,
      deleted: true,
    });
    await expectError(svc.api.getVoucher({ principal: p, voucher_id: v.id }, CALL), 'resource_not_found');
    await expectError(svc.api.deleteVoucher({ principal: p, voucher_id: v.id }, CALL), 'resource_not_found');
    const { rows } = await svc.pool.query(
      'SELECT count(*)::int AS n FROM redemptions WHERE voucher_id = $1',
      [v.id],
    );
    expect(rows[0].n).toBe(0);
    expect((await outboxEvents(svc.pool, 'voucher.deleted')).some((e) => e.data.object.id === v.id)).toBe(
      true,
    );
    await expect(create(p, { code: 'GoneSoon' })).resolves.toMatchObject({ code: 'GoneSoon' });
  });
});

describe('expiry', () => {
  it('shows expired on read at once, refuses redemption, and the sweeper persists it with one voucher.updated', async () => {
    const p = principal({ livemode: false });
    const v = await create(p, { expires_at: inOneHour() });
    await svc.pool.query("UPDATE vouchers SET expires_at = now() - interval '1 second' WHERE id = $1", [
      v.id,
    ]);
    expect((await svc.api.getVoucher({ principal: p, voucher_id: v.id }, CALL)).status).toBe('expired');
    await expectError(
      svc.api.redeemVoucher(
        { principal: p, code: v.code, order_id: 'late', amount: 100, currency: '' },
        CALL,
      ),
      'voucher_expired',
      'code',
    );

    const sweeper = new ExpirySweeper(svc.service, createLogger('test', 'silent'), 60_000);
    expect(await sweeper.sweepOnce()).toBeGreaterThanOrEqual(1);
    expect(await sweeper.sweepOnce()).toBe(0);
    const { rows } = await svc.pool.query('SELECT status FROM vouchers WHERE id = $1', [v.id]);
    expect(rows[0].status).toBe('expired');
    const events = (await outboxEvents(svc.pool, 'voucher.updated')).filter((e) => e.data.object.id === v.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      livemode: false,
      enterprise_id: p.enterprise_id,
      data: { object: { status: 'expired' } },
    });
  });

  it('the sweeper worker runs on its own once started, and stops cleanly', async () => {
    const p = principal();
    const v = await create(p, { expires_at: inOneHour() });
    await svc.pool.query("UPDATE vouchers SET expires_at = now() - interval '1 second' WHERE id = $1", [
      v.id,
    ]);
    const sweeper = new ExpirySweeper(svc.service, createLogger('test', 'silent'), 100);
    await sweeper.start();
    try {
      for (let i = 0; i < 50; i++) {
        const { rows } = await svc.pool.query('SELECT status FROM vouchers WHERE id = $1', [v.id]);
        if (rows[0].status === 'expired') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await sweeper.stop();
    }
    const { rows } = await svc.pool.query('SELECT status FROM vouchers WHERE id = $1', [v.id]);
    expect(rows[0].status).toBe('expired');
  });
});
