// Exactness under concurrency, on real PostgreSQL with a pool of 30 connections (what a
// few service replicas would hold): no over-redemption, one use per order however often
// it is replayed, and nothing commits after a committed move to inactive.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { RedemptionsStore } from '../src/redemption-store.js';
import { VouchersService } from '../src/service.js';
import { VouchersStore } from '../src/store.js';
import { CALL, outboxEvents, principal, startTestService, type TestService } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ poolSize: 30 });
});
afterAll(async () => {
  await svc.close();
});

const codeOf = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : r.reason instanceof HallmarkError ? r.reason.code : String(r.reason);

function tally(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) out[codeOf(r)] = (out[codeOf(r)] ?? 0) + 1;
  return out;
}

const redeem = (p: Principal, code: string, orderId: string) =>
  svc.api.redeemVoucher({ principal: p, code, order_id: orderId, amount: 1000, currency: '' }, CALL);

describe('races', () => {
  it('1,000 concurrent redeems of distinct orders with max_uses 100 → exactly 100 succeed, 900 max_uses_reached', async () => {
    const p = principal();
    const v = await svc.api.createVoucher(
      { principal: p, code: 'Race1000', type: 'percentage', value: 10, max_uses: 100 },
      CALL,
    );
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => redeem(p, 'Race1000', `race_${i}`)),
    );
    expect(tally(results)).toEqual({ ok: 100, voucher_max_uses_reached: 900 });
    const after = await svc.api.getVoucher({ principal: p, voucher_id: v.id }, CALL);
    expect(after).toMatchObject({ status: 'used', uses_remaining: 0, times_used: 100 });
    const { rows } = await svc.pool.query(
      'SELECT count(*)::int AS n FROM redemptions WHERE voucher_id = $1',
      [v.id],
    );
    expect(rows[0].n).toBe(100);
    const ofVoucher = async (type: string) =>
      (await outboxEvents(svc.pool, type)).filter((e) => e.data.object.metadata?.voucher_id === v.id).length;
    expect(await ofVoucher('transaction.completed')).toBe(100);
    expect(await ofVoucher('transaction.created')).toBe(100);
    expect(await ofVoucher('transaction.failed')).toBe(900);
  }, 120_000); // 1,000 requests on a shared 2-core CI machine

  it('200 concurrent replays of one order → one use consumed, all 200 get the same result', async () => {
    const p = principal();
    const v = await svc.api.createVoucher(
      { principal: p, code: 'Replay200', type: 'fixed_amount', value: 250, max_uses: 10 },
      CALL,
    );
    const results = await Promise.all(
      Array.from({ length: 200 }, () => redeem(p, 'Replay200', 'the_one_order')),
    );
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const first = results.find((r) => !r.replayed)!;
    for (const r of results) expect({ ...r, replayed: false }).toEqual(first);
    expect(first).toMatchObject({ discount_applied: 250, final_amount: 750 });
    const after = await svc.api.getVoucher({ principal: p, voucher_id: v.id }, CALL);
    expect(after).toMatchObject({ times_used: 1, uses_remaining: 9 });
    const completed = (await outboxEvents(svc.pool, 'transaction.completed')).filter(
      (e) => e.data.object.metadata.voucher_id === v.id,
    );
    expect(completed).toHaveLength(1);
  });

  it('a PATCH to inactive during a redeem storm: no redemption commits after the PATCH committed', async () => {
    const p = principal();
    const v = await svc.api.createVoucher(
      { principal: p, code: 'Storm300', type: 'percentage', value: 5 },
      CALL,
    );
    // The PATCH comes from "another replica": its own pool, so it does not queue behind the storm.
    const otherPool = svc.openPool(2);
    const other = new VouchersService(
      otherPool,
      new VouchersStore(otherPool),
      new RedemptionsStore(otherPool),
      {
        defaultCurrency: 'USD',
      },
    );
    let succeeded = 0;
    let patchDoneAt = Infinity;
    let patched: Promise<void> | null = null;
    const outcomes: { startedAt: number; ok: boolean; code?: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < 600) {
        const i = next++;
        const startedAt = performance.now();
        try {
          await redeem(p, 'Storm300', `storm_${i}`);
          outcomes.push({ startedAt, ok: true });
          if (++succeeded === 60) {
            patched = other
              .update({ enterpriseId: p.enterprise_id!, livemode: true, actorId: 'x' }, v.id, {
                status: 'inactive',
              })
              .then(() => {
                patchDoneAt = performance.now();
              });
          }
        } catch (err) {
          outcomes.push({ startedAt, ok: false, code: (err as HallmarkError).code });
        }
      }
    };
    await Promise.all(Array.from({ length: 40 }, worker));
    await patched;
    await otherPool.end();

    const ok = outcomes.filter((o) => o.ok).length;
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(outcomes.filter((o) => !o.ok).every((o) => o.code === 'voucher_inactive')).toBe(true);
    expect(outcomes.filter((o) => !o.ok).length).toBeGreaterThan(0);
    // Every redeem that started after the PATCH returned was refused.
    expect(outcomes.filter((o) => o.startedAt > patchDoneAt && o.ok)).toEqual([]);

    // Commit order: changes to the voucher row serialise on its lock (held to commit), and
    // each bumps `version`; every redemption records the version it produced. The PATCH
    // produced the final version, and every committed redemption's version is below it.
    const {
      rows: [row],
    } = await svc.pool.query('SELECT status, version, times_used FROM vouchers WHERE id = $1', [v.id]);
    expect(row.status).toBe('inactive');
    const { rows: reds } = await svc.pool.query<{ n: number; max: number; distinct_versions: number }>(
      `SELECT count(*)::int AS n, max(voucher_version)::int AS max, count(DISTINCT voucher_version)::int AS distinct_versions
       FROM redemptions WHERE voucher_id = $1`,
      [v.id],
    );
    expect(reds[0]!.n).toBe(ok);
    expect(reds[0]!.distinct_versions).toBe(ok);
    expect(row.times_used).toBe(ok);
    expect(reds[0]!.max).toBe(row.version - 1); // the last redemption, then the PATCH
    const updates = (await outboxEvents(svc.pool, 'voucher.updated')).filter(
      (e) => e.data.object.id === v.id,
    );
    expect(updates.map((e) => e.data.object.status)).toEqual(['inactive']);
  });
});
