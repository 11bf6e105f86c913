// All SQL of redemptions. service.ts decides and holds the transactions; each method here is
// one statement (see service.ts for the fast and slow paths and the lock order).
import {
  OUTBOX_WAKE,
  outboxBatch,
  outboxInsert,
  type EventInput,
  type EventType,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import type { RedemptionRecord } from './domain/redemption.js';
import type { Scope } from './domain/voucher.js';
import { EVENT_SOURCE, read, voucherFromRow, type VoucherRead } from './store.js';

interface RedemptionRow {
  voucher_id: string;
  order_id: string;
  transaction_id: string;
  customer_id: string | null;
  user_id: string;
  amount: number | null;
  currency: string;
  discount_applied: number | null;
  voucher_version: number | null;
  created_at: Date;
  rolled_back_at: Date | null;
}

const fromRow = (r: RedemptionRow): RedemptionRecord => ({
  voucherId: r.voucher_id,
  orderId: r.order_id,
  transactionId: r.transaction_id,
  customerId: r.customer_id,
  userId: r.user_id,
  amount: r.amount,
  currency: r.currency,
  discountApplied: r.discount_applied,
  voucherVersion: r.voucher_version,
  createdAt: r.created_at,
  rolledBackAt: r.rolled_back_at,
});

const one = (rows: RedemptionRow[]) => (rows[0] ? fromRow(rows[0]) : null);

/** The columns a redemption row is written with, in the order the statements take them. */
const rowParams = (r: RedemptionRecord) => [
  r.voucherId,
  r.orderId,
  r.transactionId,
  r.customerId,
  r.userId,
  r.amount,
  r.currency,
  r.discountApplied,
];

export class RedemptionsStore {
  constructor(readonly pool: Pool) {}

  /** The voucher by code (case-insensitive) and whether this order has a redemption row of it. */
  async lookup(
    scope: Scope,
    code: string,
    orderId: string,
  ): Promise<(VoucherRead & { orderSeen: boolean }) | null> {
    const { rows } = await this.pool.query({
      // Named: parsed and planned once per connection (the hot path of every redemption).
      name: 'vouchers_redeem_lookup',
      text: `SELECT v.*, now() AS db_now,
         EXISTS (SELECT 1 FROM redemptions r WHERE r.voucher_id = v.id AND r.order_id = $4) AS order_seen
       FROM vouchers v WHERE v.enterprise_id = $1 AND v.livemode = $2 AND lower(v.code) = lower($3)`,
      values: [scope.enterpriseId, scope.livemode, code, orderId],
    });
    return rows[0] ? { ...read(rows[0]), orderSeen: rows[0].order_seen as boolean } : null;
  }

  /**
   * The whole redemption in one autocommit statement: the conditional UPDATE (refusing the
   * voucher's last use, which the slow path takes), then — only for the row it returned — the
   * redemption row and the outbox events (the kit's outbox write, guarded by the UPDATE).
   * False when it did not redeem: the voucher cannot give this use now, or the order has a
   * redemption row already (its primary key aborts the statement, UPDATE included), or it
   * crossed a rollback of the same order (40P01).
   */
  async redeemInOneStatement(
    scope: Scope,
    r: RedemptionRecord,
    events: EventInput<EventType>[],
  ): Promise<boolean> {
    const batch = outboxBatch(EVENT_SOURCE, events);
    try {
      const { rows } = await this.pool.query<{ redeemed: number }>({
        // Named: parsed and planned once per connection, not on every redemption.
        name: 'vouchers_redeem_one',
        text: `WITH v AS (
           UPDATE vouchers SET times_used = times_used + 1, version = version + 1, updated_at = now()
           WHERE id = $1 AND enterprise_id = $9 AND livemode = $10
             AND status = 'active'
             AND (max_uses IS NULL OR times_used + 1 < max_uses) -- the last use takes the slow path
             AND (expires_at IS NULL OR expires_at > now())
           RETURNING id, version),
         r AS (
           INSERT INTO redemptions (voucher_id, order_id, transaction_id, customer_id, user_id, amount, currency,
             discount_applied, enterprise_id, livemode, voucher_version, created_at)
           SELECT v.id, $2, $3, $4, $5, $6, $7, $8, $9, $10, v.version, $11 FROM v
           RETURNING 1),
         e AS (${outboxInsert('$12', 'v')})
         SELECT (SELECT count(*) FROM r)::int AS redeemed, (SELECT count(*) FROM e)::int AS events,
           ${OUTBOX_WAKE}
         FROM v`,
        values: [...rowParams(r), scope.enterpriseId, scope.livemode, r.createdAt, batch.param],
      });
      return rows[0]?.redeemed === 1;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '23505' || code === '40P01') return false;
      throw err;
    }
  }

  /** The redemption row, unless the order has one already (then null; a duplicate waits here). */
  async insert(tx: Queryable, scope: Scope, r: RedemptionRecord): Promise<RedemptionRecord | null> {
    const { rows } = await tx.query<RedemptionRow>(
      `INSERT INTO redemptions (voucher_id, order_id, transaction_id, customer_id, user_id, amount, currency,
         discount_applied, enterprise_id, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (voucher_id, order_id) DO NOTHING RETURNING *`,
      [...rowParams(r), scope.enterpriseId, scope.livemode],
    );
    return one(rows);
  }

  /** The order's redemption row, locked; null when the voucher (and so the row) is gone. */
  async lockExisting(tx: Queryable, voucherId: string, orderId: string): Promise<RedemptionRecord | null> {
    const { rows } = await tx.query<RedemptionRow>(
      'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 FOR NO KEY UPDATE',
      [voucherId, orderId],
    );
    return one(rows);
  }

  /** A rolled-back order redeems afresh: its row takes the new attempt's values. */
  async renew(tx: Queryable, r: RedemptionRecord): Promise<RedemptionRecord> {
    const { rows } = await tx.query<RedemptionRow>(
      `UPDATE redemptions SET transaction_id = $3, customer_id = $4, user_id = $5, amount = $6, currency = $7,
         discount_applied = $8, voucher_version = NULL, created_at = now(), rolled_back_at = NULL
       WHERE voucher_id = $1 AND order_id = $2 RETURNING *`,
      rowParams(r),
    );
    return fromRow(rows[0]!);
  }

  /**
   * The conditional UPDATE that consumes a use (moving the voucher to `used` on its last),
   * stamping the voucher's new version on the order's redemption row. Null when the voucher
   * cannot give a use now.
   */
  async consumeUse(
    tx: Queryable,
    scope: Scope,
    voucherId: string,
    orderId: string,
  ): Promise<VoucherRead | null> {
    const { rows } = await tx.query(
      `WITH v AS (
         UPDATE vouchers SET
           times_used = times_used + 1,
           status = CASE WHEN max_uses IS NOT NULL AND times_used + 1 >= max_uses THEN 'used' ELSE status END,
           version = version + 1,
           updated_at = now()
         WHERE id = $1 AND enterprise_id = $3 AND livemode = $4
           AND status = 'active'
           AND (max_uses IS NULL OR times_used < max_uses)
           AND (expires_at IS NULL OR expires_at > now())
         RETURNING *),
       r AS (
         UPDATE redemptions SET voucher_version = v.version FROM v
         WHERE redemptions.voucher_id = v.id AND redemptions.order_id = $2) -- runs even though unread
       SELECT v.*, now() AS db_now FROM v`,
      [voucherId, orderId, scope.enterpriseId, scope.livemode],
    );
    return rows[0] ? read(rows[0]) : null;
  }

  /** How many unrolled-back redemptions the customer has of the voucher. */
  async customerUses(db: Queryable, voucherId: string, customerId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM redemptions
       WHERE voucher_id = $1 AND customer_id = $2 AND rolled_back_at IS NULL`,
      [voucherId, customerId],
    );
    return rows[0]!.n;
  }

  /** The order's live (not rolled back) redemption of the voucher, if any. */
  async findLive(voucherId: string, orderId: string): Promise<RedemptionRecord | null> {
    const { rows } = await this.pool.query<RedemptionRow>(
      'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 AND rolled_back_at IS NULL',
      [voucherId, orderId],
    );
    return one(rows);
  }

  /** Marks the order's live redemption rolled back; null when there is none. */
  async markRolledBack(
    tx: Queryable,
    scope: Scope,
    voucherId: string,
    orderId: string,
  ): Promise<RedemptionRecord | null> {
    const { rows } = await tx.query<RedemptionRow>(
      `UPDATE redemptions SET rolled_back_at = now()
       WHERE voucher_id = $1 AND order_id = $2 AND enterprise_id = $3 AND livemode = $4 AND rolled_back_at IS NULL
       RETURNING *`,
      [voucherId, orderId, scope.enterpriseId, scope.livemode],
    );
    return one(rows);
  }

  /** The order's redemption of the voucher in this scope, rolled back or not. */
  async find(
    tx: Queryable,
    scope: Scope,
    voucherId: string,
    orderId: string,
  ): Promise<RedemptionRecord | null> {
    const { rows } = await tx.query<RedemptionRow>(
      'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 AND enterprise_id = $3 AND livemode = $4',
      [voucherId, orderId, scope.enterpriseId, scope.livemode],
    );
    return one(rows);
  }

  /** The voucher row, locked for a change of its counters. */
  async lockVoucher(tx: Queryable, voucherId: string) {
    const { rows } = await tx.query(
      'SELECT *, now() AS db_now FROM vouchers WHERE id = $1 FOR NO KEY UPDATE',
      [voucherId],
    );
    return voucherFromRow(rows[0]);
  }

  /** Sets the voucher's use count and status (a use given back). */
  async setUses(tx: Queryable, voucherId: string, timesUsed: number, status: string): Promise<VoucherRead> {
    const { rows } = await tx.query(
      `UPDATE vouchers SET times_used = $2, status = $3, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING *, now() AS db_now`,
      [voucherId, timesUsed, status],
    );
    return read(rows[0]);
  }
}
