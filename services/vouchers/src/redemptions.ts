// All SQL of redemptions: redeem, validate (dry run) and rollback.
//
// Exactness. A redemption commits in ONE conditional UPDATE of the voucher (active, not
// expired, uses left) … RETURNING, which takes the row lock and holds it to commit; waiters
// re-check the condition on the committed row (READ COMMITTED re-evaluation), so uses can
// never exceed max_uses. No read-then-write: what is read before (type, value, currency) is
// immutable. The lock-hold time bounds the throughput on a hot voucher, so there are two
// ways to run it:
//
//  - Fast path, the common case (a new order, uses to spare, no per-customer limit): one
//    autocommit statement whose CTEs do the conditional UPDATE, then — only for the row it
//    returned — INSERT the redemption row and the outbox events. The lock is held inside
//    PostgreSQL only (statement + commit), never across a round trip to this process. An
//    order that already redeemed fails its INSERT on the primary key (voucher_id, order_id),
//    which aborts the whole statement (the UPDATE with it): nothing consumed, and the slow
//    path answers the replay. Its UPDATE refuses the voucher's last use and any refusal, so
//    that those (status → used and its voucher.updated event; the reason for a refusal) are
//    all decided in one place, the slow path.
//  - Slow path, one transaction:
//     1. INSERT the redemption row ON CONFLICT (voucher_id, order_id) DO NOTHING. A
//        concurrent duplicate of the same order blocks here until the first commits (then
//        it is a replay) or rolls back (then it proceeds) — an order consumes at most one use.
//     2. The outbox events whose content is known, in one statement.
//     3. The conditional UPDATE.
//     4. The per-customer count (only for vouchers with that limit), as a new statement
//        after the lock, so it sees every redemption of the voucher committed before ours.
//    When the UPDATE matches nothing the transaction rolls back and a follow-up read says
//    why; `transaction.failed` is then committed on its own.
//
// Lock order: the slow path and rollback take the redemption row, then the voucher row; the
// fast path (like a delete) the voucher row, then the redemption key. They can only cross on
// one (voucher, order) at once, which PostgreSQL reports as a deadlock (40P01): retried.
import {
  envelopeOf,
  HallmarkError,
  newId,
  notFound,
  recordEvents,
  subjectFor,
  transaction,
  type EventInput,
  type EventType,
  type Pool,
  type PoolClient,
  type Queryable,
} from '@hallmark/kit';
import {
  redeemedObject,
  redemptionResult,
  transactionObject,
  type RedemptionRecord,
  type RedemptionResult,
} from './domain/redemption.js';
import { computeDiscount, refusalFor, statusAfterRollback } from './domain/rules.js';
import type { Redemption } from './domain/validation.js';
import type { Scope, VoucherRecord } from './domain/voucher.js';
import {
  EVENT_SOURCE,
  read,
  recordVoucherEvent,
  voucherFromRow,
  type VoucherRead,
  type VouchersStore,
} from './store.js';

const MAX_ATTEMPTS = 5;

interface RedemptionRow {
  voucher_id: string;
  order_id: string;
  transaction_id: string;
  customer_id: string | null;
  user_id: string;
  amount: number;
  currency: string;
  discount_applied: number;
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

/** The redemption was refused; `error` null means "read the voucher to say why". */
class Refusal extends Error {
  constructor(readonly error: HallmarkError | null) {
    super('redemption refused');
  }
}
/** The state moved under us in a way a fresh attempt resolves. */
class Retry extends Error {}

const voucherNotFound = () => new HallmarkError('voucher_not_found', { param: 'code' });
const pgCode = (err: unknown) => (err as { code?: string }).code;

/** What a redemption attempt will write, fixed before its transaction. */
interface Plan {
  input: Redemption;
  currency: string;
  discount: number;
  userId: string;
}

export interface RollbackOutcome {
  voucher: VoucherRead;
  redemption: RedemptionRecord;
  alreadyRolledBack: boolean;
}

export class RedemptionsStore {
  constructor(
    private readonly pool: Pool,
    private readonly vouchers: VouchersStore,
    private readonly opts: { defaultCurrency: string },
  ) {}

  async redeem(scope: Scope, input: Redemption): Promise<RedemptionResult> {
    for (let attempt = 1; ; attempt++) {
      const found = await this.lookup(scope, input.code, input.orderId);
      if (!found) throw voucherNotFound();
      const v = found.voucher;
      const plan = this.plan(scope, v, input);
      try {
        const mismatch = this.currencyMismatch(v, plan.currency);
        if (mismatch) throw new Refusal(mismatch);
        if (attempt === 1 && !found.orderSeen && this.fastPathApplies(v, found.now)) {
          const result = await this.redeemInOneStatement(scope, v, plan);
          if (result) return result;
        }
        return await transaction(this.pool, (tx) => this.redeemTx(tx, scope, v, plan));
      } catch (err) {
        if (err instanceof Retry) {
          if (attempt < MAX_ATTEMPTS) continue;
          throw voucherNotFound();
        }
        if (err instanceof Refusal) {
          const error = err.error ?? (await this.classify(scope, v.id));
          if (!error && attempt < MAX_ATTEMPTS) continue; // redeemable again (a use came back): retry
          const refusal = error ?? new HallmarkError('resource_locked', { param: 'code' });
          if (refusal.code !== 'voucher_not_found') await this.recordFailure(v, plan, refusal);
          throw refusal;
        }
        if (pgCode(err) === '23503') throw voucherNotFound(); // deleted between lookup and insert
        if (pgCode(err) === '40P01' && attempt < MAX_ATTEMPTS) continue; // deadlock with a delete
        throw err;
      }
    }
  }

  /** The same answer as `redeem` at this moment; nothing written. */
  async validate(scope: Scope, input: Redemption): Promise<RedemptionResult> {
    const found = await this.vouchers.findByCode(scope, input.code);
    if (!found) throw voucherNotFound();
    const { voucher: v, now } = found;
    const plan = this.plan(scope, v, input);
    const mismatch = this.currencyMismatch(v, plan.currency);
    if (mismatch) throw mismatch;
    const existing = await this.pool.query<RedemptionRow>(
      'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 AND rolled_back_at IS NULL',
      [v.id, input.orderId],
    );
    if (existing.rows[0]) return this.replay(v, fromRow(existing.rows[0]), plan);
    const refusal = refusalFor(v, now);
    if (refusal) throw new HallmarkError(refusal, { param: 'code' });
    const overLimit = await this.customerOverLimit(this.pool, v, input.customerId, 1);
    if (overLimit) throw overLimit;
    return redemptionResult(v, { ...input, currency: plan.currency, discountApplied: plan.discount }, false);
  }

  /** Gives the order's use back once; a second call changes nothing. */
  async rollback(scope: Scope, voucherId: string, orderId: string): Promise<RollbackOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rollbackOnce(scope, voucherId, orderId);
      } catch (err) {
        // A concurrent delete locks voucher then redemptions; we lock the other way round.
        if (pgCode(err) === '40P01' && attempt < MAX_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  private async rollbackOnce(scope: Scope, voucherId: string, orderId: string): Promise<RollbackOutcome> {
    if (!(await this.vouchers.get(scope, voucherId))) throw await this.vouchers.notFound(scope, voucherId);
    return transaction(this.pool, async (tx) => {
      const marked = await tx.query<RedemptionRow>(
        `UPDATE redemptions SET rolled_back_at = now()
         WHERE voucher_id = $1 AND order_id = $2 AND enterprise_id = $3 AND livemode = $4 AND rolled_back_at IS NULL
         RETURNING *`,
        [voucherId, orderId, scope.enterpriseId, scope.livemode],
      );
      if (!marked.rows[0]) {
        const prior = await tx.query<RedemptionRow>(
          'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 AND enterprise_id = $3 AND livemode = $4',
          [voucherId, orderId, scope.enterpriseId, scope.livemode],
        );
        const voucher = await this.vouchers.get(scope, voucherId, tx);
        if (!prior.rows[0] || !voucher) throw notFound('redemption', orderId);
        return { voucher, redemption: fromRow(prior.rows[0]), alreadyRolledBack: true };
      }
      const redemption = fromRow(marked.rows[0]);
      const locked = await tx.query(
        'SELECT *, now() AS db_now FROM vouchers WHERE id = $1 FOR NO KEY UPDATE',
        [voucherId],
      );
      const before = voucherFromRow(locked.rows[0]);
      const timesUsed = before.timesUsed - 1;
      const { rows } = await tx.query(
        `UPDATE vouchers SET times_used = $2, status = $3, version = version + 1, updated_at = now()
         WHERE id = $1 RETURNING *, now() AS db_now`,
        [voucherId, timesUsed, statusAfterRollback({ ...before, timesUsed })],
      );
      const after = read(rows[0]);
      await recordVoucherEvent(tx, 'voucher.updated', after.voucher, after.now);
      await this.recordTransaction(tx, 'transaction.updated', after.voucher, redemption, 'reversed', {
        rolled_back_at: redemption.rolledBackAt?.toISOString(),
      });
      return { voucher: after, redemption, alreadyRolledBack: false };
    });
  }

  /** The voucher by code (case-insensitive) and whether this order has a redemption row of it. */
  private async lookup(
    scope: Scope,
    code: string,
    orderId: string,
  ): Promise<(VoucherRead & { orderSeen: boolean }) | null> {
    const { rows } = await this.pool.query(
      `SELECT v.*, now() AS db_now,
         EXISTS (SELECT 1 FROM redemptions r WHERE r.voucher_id = v.id AND r.order_id = $4) AS order_seen
       FROM vouchers v WHERE v.enterprise_id = $1 AND v.livemode = $2 AND lower(v.code) = lower($3)`,
      [scope.enterpriseId, scope.livemode, code, orderId],
    );
    return rows[0] ? { ...read(rows[0]), orderSeen: rows[0].order_seen as boolean } : null;
  }

  /**
   * The fast path is for a voucher that, as last read, can be redeemed and has a use to
   * spare after this one; its statement re-checks all of that under the lock.
   */
  private fastPathApplies(v: VoucherRecord, now: Date): boolean {
    return (
      v.maxUsesPerCustomer === null &&
      refusalFor(v, now) === null &&
      (v.maxUses === null || v.timesUsed + 1 < v.maxUses)
    );
  }

  /**
   * The whole redemption in one autocommit statement (see the top of this file). Null when
   * it did not redeem — the voucher cannot give this use now, or the order has a
   * redemption row already — and the slow path must decide.
   */
  private async redeemInOneStatement(
    scope: Scope,
    v: VoucherRecord,
    plan: Plan,
  ): Promise<RedemptionResult | null> {
    const { input } = plan;
    const redemption: RedemptionRecord = {
      voucherId: v.id,
      orderId: input.orderId,
      transactionId: newId('transaction'),
      customerId: input.customerId,
      userId: plan.userId,
      amount: input.amount,
      currency: plan.currency,
      discountApplied: plan.discount,
      voucherVersion: null,
      createdAt: new Date(),
      rolledBackAt: null,
    };
    const events = this.redemptionEvents(v, redemption).map((e) => {
      const event = envelopeOf(EVENT_SOURCE, e);
      return { subject: subjectFor(EVENT_SOURCE, event.type), event };
    });
    try {
      const { rows } = await this.pool.query<{ redeemed: number }>(
        `WITH v AS (
           UPDATE vouchers SET times_used = times_used + 1, version = version + 1, updated_at = now()
           WHERE id = $1 AND enterprise_id = $2 AND livemode = $3
             AND status = 'active'
             AND (max_uses IS NULL OR times_used + 1 < max_uses) -- the last use takes the slow path
             AND (expires_at IS NULL OR expires_at > now())
           RETURNING id, version),
         r AS (
           INSERT INTO redemptions (voucher_id, order_id, transaction_id, customer_id, user_id, amount, currency,
             discount_applied, enterprise_id, livemode, voucher_version, created_at)
           SELECT v.id, $4, $5, $6, $7, $8, $9, $10, $2, $3, v.version, $11 FROM v
           RETURNING 1),
         e AS (
           INSERT INTO outbox (id, subject, type, payload)
           SELECT x->'event'->>'id', x->>'subject', x->'event'->>'type', x->'event'
           FROM v, jsonb_array_elements($12::jsonb) AS x
           RETURNING 1)
         SELECT (SELECT count(*) FROM r)::int AS redeemed, (SELECT count(*) FROM e)::int AS events,
           pg_notify('hallmark_outbox', '')
         FROM v`,
        [
          v.id,
          scope.enterpriseId,
          scope.livemode,
          input.orderId,
          redemption.transactionId,
          input.customerId,
          plan.userId,
          input.amount,
          plan.currency,
          plan.discount,
          redemption.createdAt,
          JSON.stringify(events),
        ],
      );
      if (rows[0]?.redeemed !== 1) return null;
      return redemptionResult(v, redemption, false);
    } catch (err) {
      // The order redeemed meanwhile (primary key), or crossed a rollback of the same order.
      if (pgCode(err) === '23505' || pgCode(err) === '40P01') return null;
      throw err;
    }
  }

  private plan(scope: Scope, v: VoucherRecord, input: Redemption): Plan {
    if (v.maxUsesPerCustomer !== null && !input.customerId) {
      throw new HallmarkError('parameter_missing', {
        param: 'customer_id',
        message: 'This voucher is limited per customer: customer_id is required.',
      });
    }
    return {
      input,
      currency: input.currency ?? v.currency ?? this.opts.defaultCurrency,
      discount: computeDiscount(v.type, v.value, input.amount),
      userId: input.customerId ?? scope.actorId,
    };
  }

  private currencyMismatch(v: VoucherRecord, currency: string): HallmarkError | null {
    if (v.currency === null || v.currency === currency) return null;
    return new HallmarkError('parameter_invalid', {
      param: 'currency',
      message: `This voucher applies only to orders in ${v.currency}.`,
    });
  }

  private async redeemTx(
    tx: PoolClient,
    scope: Scope,
    v: VoucherRecord,
    plan: Plan,
  ): Promise<RedemptionResult> {
    const { input } = plan;
    const transactionId = newId('transaction');
    const row = [
      v.id,
      input.orderId,
      transactionId,
      input.customerId,
      plan.userId,
      input.amount,
      plan.currency,
      plan.discount,
    ];
    const inserted = await tx.query<RedemptionRow>(
      `INSERT INTO redemptions (voucher_id, order_id, transaction_id, customer_id, user_id, amount, currency,
         discount_applied, enterprise_id, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (voucher_id, order_id) DO NOTHING RETURNING *`,
      [...row, scope.enterpriseId, scope.livemode],
    );
    let record = inserted.rows[0];
    if (!record) {
      const prior = await tx.query<RedemptionRow>(
        'SELECT * FROM redemptions WHERE voucher_id = $1 AND order_id = $2 FOR NO KEY UPDATE',
        row.slice(0, 2),
      );
      if (!prior.rows[0]) throw new Retry(); // the voucher was deleted meanwhile
      if (prior.rows[0].rolled_back_at === null) return this.replay(v, fromRow(prior.rows[0]), plan);
      // The order's earlier redemption was rolled back: it redeems afresh.
      const again = await tx.query<RedemptionRow>(
        `UPDATE redemptions SET transaction_id = $3, customer_id = $4, user_id = $5, amount = $6, currency = $7,
           discount_applied = $8, voucher_version = NULL, created_at = now(), rolled_back_at = NULL
         WHERE voucher_id = $1 AND order_id = $2 RETURNING *`,
        row,
      );
      record = again.rows[0]!;
    }
    const redemption = fromRow(record);
    // Every event whose content is known before the lock is written before it: the lock is
    // then held for the conditional UPDATE and the commit only. A refusal rolls them back.
    await recordEvents(tx, EVENT_SOURCE, this.redemptionEvents(v, redemption));

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
      [v.id, input.orderId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw new Refusal(null);
    const after = read(rows[0]);
    const overLimit = await this.customerOverLimit(tx, after.voucher, input.customerId, 0);
    if (overLimit) throw new Refusal(overLimit);
    // Once per voucher lifetime (its last use): the only event that needs the state after the UPDATE.
    if (after.voucher.status !== 'active')
      await recordVoucherEvent(tx, 'voucher.updated', after.voucher, after.now);
    return redemptionResult(v, redemption, false);
  }

  /** The stored result of an earlier redemption of this order, if the request matches it. */
  private replay(v: VoucherRecord, prior: RedemptionRecord, plan: Plan): RedemptionResult {
    const { input } = plan;
    if (
      prior.amount !== input.amount ||
      prior.currency !== plan.currency ||
      prior.customerId !== input.customerId
    ) {
      throw new HallmarkError('resource_already_exists', {
        param: 'order_id',
        message: 'This order already redeemed the voucher with a different amount, currency or customer.',
      });
    }
    return redemptionResult(v, prior, true);
  }

  /**
   * The per-customer limit. `pending` is 1 for a dry run (the use not yet recorded) and 0
   * inside a redemption (its own row is already counted). Inside a redemption this runs
   * after the voucher lock, so it sees every earlier redemption of the voucher.
   */
  private async customerOverLimit(
    db: Queryable,
    v: VoucherRecord,
    customerId: string | null,
    pending: number,
  ): Promise<HallmarkError | null> {
    if (v.maxUsesPerCustomer === null || customerId === null) return null;
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM redemptions
       WHERE voucher_id = $1 AND customer_id = $2 AND rolled_back_at IS NULL`,
      [v.id, customerId],
    );
    if (rows[0]!.n + pending <= v.maxUsesPerCustomer) return null;
    return new HallmarkError('voucher_max_uses_reached', {
      param: 'customer_id',
      message: 'This customer has used the voucher the maximum number of times.',
    });
  }

  /** Why the conditional UPDATE matched nothing; null when the voucher is redeemable again. */
  private async classify(scope: Scope, voucherId: string): Promise<HallmarkError | null> {
    const current = await this.vouchers.get(scope, voucherId);
    if (!current) return voucherNotFound();
    const code = refusalFor(current.voucher, current.now);
    return code ? new HallmarkError(code, { param: 'code' }) : null;
  }

  /** transaction.failed for a refused redemption of an existing voucher, committed on its own. */
  private async recordFailure(v: VoucherRecord, plan: Plan, error: HallmarkError): Promise<void> {
    const attempt: RedemptionRecord = {
      voucherId: v.id,
      orderId: plan.input.orderId,
      transactionId: newId('transaction'),
      customerId: plan.input.customerId,
      userId: plan.userId,
      amount: plan.input.amount,
      currency: plan.currency,
      discountApplied: plan.discount,
      voucherVersion: null,
      createdAt: new Date(),
      rolledBackAt: null,
    };
    await transaction(this.pool, (tx) =>
      this.recordTransaction(tx, 'transaction.failed', v, attempt, 'failed', {
        failure_code: error.code,
        failure_message: error.message,
      }),
    );
  }

  /** What a redemption emits with its commit: the Transaction, pending then completed, and voucher.redeemed. */
  private redemptionEvents(v: VoucherRecord, r: RedemptionRecord): EventInput<EventType>[] {
    return [
      this.transactionEvent('transaction.created', v, r, 'pending'),
      this.transactionEvent('transaction.completed', v, r, 'completed'),
      {
        type: 'voucher.redeemed',
        data: { object: redeemedObject(v, r), order_id: r.orderId },
        enterpriseId: v.enterpriseId,
        livemode: v.livemode,
      },
    ];
  }

  private transactionEvent(
    type: 'transaction.created' | 'transaction.completed' | 'transaction.failed' | 'transaction.updated',
    v: VoucherRecord,
    r: RedemptionRecord,
    status: 'pending' | 'completed' | 'failed' | 'reversed',
    extra: Record<string, unknown> = {},
  ): EventInput<EventType> {
    return {
      type,
      data: { object: transactionObject(v, r, status, extra) },
      enterpriseId: v.enterpriseId,
      livemode: v.livemode,
    };
  }

  private async recordTransaction(
    tx: Queryable,
    type: 'transaction.created' | 'transaction.completed' | 'transaction.failed' | 'transaction.updated',
    v: VoucherRecord,
    r: RedemptionRecord,
    status: 'pending' | 'completed' | 'failed' | 'reversed',
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    await recordEvents(tx, EVENT_SOURCE, [this.transactionEvent(type, v, r, status, extra)]);
  }
}
