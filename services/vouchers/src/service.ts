// The use cases of discount vouchers: CRUD, redeem, validate (dry run) and rollback. Each
// validates its input (domain/validation), holds its transaction, asks domain/ to decide and
// the stores (store.ts, redemption-store.ts) to read and write — events in the same
// transaction through the kit outbox.
//
// Exactness of a redemption. It commits in ONE conditional UPDATE of the voucher (active, not
// expired, uses left) … RETURNING, which takes the row lock and holds it to commit; waiters
// re-check the condition on the committed row (READ COMMITTED re-evaluation), so uses can
// never exceed max_uses. No read-then-write: what is read before (type, value, currency) is
// immutable. The lock-hold time bounds the throughput on a hot voucher, so there are two ways
// to run it:
//
//  - Fast path, the common case (a new order, uses to spare, no per-customer limit): one
//    autocommit statement (RedemptionsStore.redeemInOneStatement) whose CTEs do the
//    conditional UPDATE, then — only for the row it returned — INSERT the redemption row and
//    the outbox events. The lock is held inside PostgreSQL only (statement + commit), never
//    across a round trip to this process. An order that already redeemed fails its INSERT on
//    the primary key (voucher_id, order_id), which aborts the whole statement (the UPDATE
//    with it): nothing consumed, and the slow path answers the replay. Its UPDATE refuses the
//    voucher's last use and any refusal, so that those (status → used and its voucher.updated
//    event; the reason for a refusal) are all decided in one place, the slow path. A voucher
//    redeemed here before takes it with no read first: its terms (type, value, currency,
//    code, id) never change and are remembered; what does change the statement re-checks.
//  - Slow path, one transaction (redeemInTransaction):
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
  HallmarkError,
  isId,
  missingParam,
  newId,
  notFound,
  notFoundInOtherMode,
  transaction,
  type Pool,
  type PoolClient,
} from '@hallmark/kit';
import {
  currencyMismatch,
  customerLimitRefusal,
  dryRunResult,
  fastPathApplies,
  planRedemption,
  redemptionEvents,
  redemptionOf,
  refusalError,
  replayOf,
  transactionEvent,
  voucherNotFound,
  type Plan,
} from './domain/redeem.js';
import { redemptionResult, type RedemptionRecord, type RedemptionResult } from './domain/redemption.js';
import { applyPatch, statusAfterRollback } from './domain/rules.js';
import {
  parseCreate,
  parseList,
  parseRedeem,
  parseUpdate,
  type CreateInput,
  type RedeemInput,
  type Redemption,
  type UpdateInput,
} from './domain/validation.js';
import { voucherEvent, type Scope, type VoucherRecord, type VoucherTerms } from './domain/voucher.js';
import type { RedemptionsStore } from './redemption-store.js';
import { recordVoucherEvents, type VoucherRead, type VouchersStore } from './store.js';

const MAX_ATTEMPTS = 5;
/** Vouchers whose terms this process remembers (cleared whole past this: a bound, not an LRU). */
const TERMS_MAX = 10_000;

/** The redemption was refused; `error` null means "read the voucher to say why". */
class Refusal extends Error {
  constructor(readonly error: HallmarkError | null) {
    super('redemption refused');
  }
}
/** The state moved under us in a way a fresh attempt resolves. */
class Retry extends Error {}

const pgCode = (err: unknown) => (err as { code?: string }).code;

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
function voucherId(id: string): string {
  if (!isId('voucher', id)) throw notFound('voucher', id);
  return id;
}

export interface RollbackOutcome {
  voucher: VoucherRead;
  redemption: RedemptionRecord;
  alreadyRolledBack: boolean;
}

export class VouchersService {
  /**
   * The terms of vouchers redeemed here lately, by scope and code, for the fast path of the
   * next redemption without the read before it: the terms never change, and the statement
   * re-checks everything that does (status, uses, expiry, the order's row) under the lock.
   */
  private readonly terms = new Map<string, VoucherTerms>();

  constructor(
    private readonly pool: Pool,
    private readonly vouchers: VouchersStore,
    private readonly redemptions: RedemptionsStore,
    private readonly opts: { defaultCurrency: string },
  ) {}

  async create(scope: Scope, raw: CreateInput): Promise<VoucherRead> {
    const input = parseCreate(raw, new Date());
    return transaction(this.pool, async (tx) => {
      const created = await this.vouchers.insert(tx, scope, input);
      await recordVoucherEvents(tx, [voucherEvent('discount_voucher.created', created.voucher, created.now)]);
      return created;
    });
  }

  async list(scope: Scope, raw: { page?: number; limit?: number; status?: string }) {
    const q = parseList(raw);
    return { ...(await this.vouchers.list(scope, q)), query: q };
  }

  /** The 404 for `id`, with Stripe's hint when it exists in the other mode. */
  private async voucherNotFound(scope: Scope, id: string): Promise<HallmarkError> {
    return (await this.vouchers.existsInOtherMode(scope, id))
      ? notFoundInOtherMode('voucher', id, scope.livemode)
      : notFound('voucher', id);
  }

  async get(scope: Scope, id: string): Promise<VoucherRead> {
    const found = await this.vouchers.get(scope, voucherId(id));
    if (!found) throw await this.voucherNotFound(scope, id);
    return found;
  }

  /**
   * Read-modify-write under the row lock: serialised with redemptions (which hold the same
   * lock from their conditional UPDATE to commit), so once a move to inactive commits, no
   * redemption can commit after it.
   */
  async update(scope: Scope, id: string, raw: UpdateInput): Promise<VoucherRead> {
    const patch = parseUpdate(raw);
    voucherId(id);
    return transaction(this.pool, async (tx) => {
      const current = await this.vouchers.lockForUpdate(tx, scope, id);
      if (!current) throw await this.voucherNotFound(scope, id);
      const next = applyPatch(current.voucher, patch, current.now);
      if (!next.changed) return current;
      const after = await this.vouchers.setStatusAndMaxUses(tx, id, next.status, next.maxUses);
      await recordVoucherEvents(tx, [voucherEvent('voucher.updated', after.voucher, after.now)]);
      return after;
    });
  }

  async delete(scope: Scope, id: string): Promise<VoucherRead> {
    voucherId(id);
    return transaction(this.pool, async (tx) => {
      const gone = await this.vouchers.delete(tx, scope, id);
      if (!gone) throw await this.voucherNotFound(scope, id);
      await recordVoucherEvents(tx, [voucherEvent('voucher.deleted', gone.voucher, gone.now)]);
      return gone;
    });
  }

  async redeem(scope: Scope, raw: RedeemInput): Promise<RedemptionResult> {
    const input = parseRedeem(raw);
    const termsKey = `${scope.enterpriseId}|${scope.livemode}|${input.code.toLowerCase()}`;
    const known = this.terms.get(termsKey);
    if (known) {
      const done = await this.redeemKnown(scope, known, input);
      if (done) return done;
      // Anything else (a refusal, a replay, the last use, a deleted voucher) is decided
      // below from a fresh read, as if this voucher had never been seen.
      this.terms.delete(termsKey);
    }
    for (let attempt = 1; ; attempt++) {
      const found = await this.redemptions.lookup(scope, input.code, input.orderId);
      if (!found) throw voucherNotFound();
      const v = found.voucher;
      if (v.maxUsesPerCustomer === null) {
        if (this.terms.size >= TERMS_MAX) this.terms.clear();
        this.terms.set(termsKey, termsOf(v));
      }
      const plan = planRedemption(scope, v, input, this.opts.defaultCurrency);
      try {
        const mismatch = currencyMismatch(v, plan.currency);
        if (mismatch) throw new Refusal(mismatch);
        if (attempt === 1 && !found.orderSeen && fastPathApplies(v, found.now)) {
          const r = redemptionOf(v, plan, newId('transaction'), new Date());
          if (await this.redemptions.redeemInOneStatement(scope, r, redemptionEvents(v, r)))
            return redemptionResult(v, r, false);
        }
        return await transaction(this.pool, (tx) => this.redeemInTransaction(tx, scope, v, plan));
      } catch (err) {
        if (err instanceof Retry) {
          if (attempt < MAX_ATTEMPTS) continue;
          throw voucherNotFound();
        }
        if (err instanceof Refusal) {
          const error = err.error ?? (await this.whyRefused(scope, v.id));
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

  /**
   * The fast path on remembered terms, with no read first: the one statement, or null when
   * it did not redeem (then `redeem` reads the voucher and decides as for a new one).
   */
  private async redeemKnown(
    scope: Scope,
    t: VoucherTerms,
    input: Redemption,
  ): Promise<RedemptionResult | null> {
    const plan = planRedemption(scope, t, input, this.opts.defaultCurrency);
    if (currencyMismatch(t, plan.currency)) return null;
    const r = redemptionOf(t, plan, newId('transaction'), new Date());
    if (!(await this.redemptions.redeemInOneStatement(scope, r, redemptionEvents(t, r)))) return null;
    return redemptionResult(t, r, false);
  }

  /** The same answer as `redeem` at this moment; nothing written. */
  async validate(scope: Scope, raw: RedeemInput): Promise<RedemptionResult> {
    const input = parseRedeem(raw);
    const found = await this.vouchers.findByCode(scope, input.code);
    if (!found) throw voucherNotFound();
    const { voucher: v, now } = found;
    const plan = planRedemption(scope, v, input, this.opts.defaultCurrency);
    const mismatch = currencyMismatch(v, plan.currency);
    if (mismatch) throw mismatch;
    const existing = await this.redemptions.findLive(v.id, input.orderId);
    if (existing) return replayOf(v, existing, plan);
    const refusal = refusalError(v, now);
    if (refusal) throw refusal;
    if (v.maxUsesPerCustomer !== null && input.customerId !== null) {
      const used = await this.redemptions.customerUses(this.pool, v.id, input.customerId);
      const overLimit = customerLimitRefusal(v, used, 1);
      if (overLimit) throw overLimit;
    }
    return dryRunResult(v, plan);
  }

  /** Gives the order's use back once; a second call changes nothing. */
  async rollback(scope: Scope, id: string, orderId: string): Promise<RollbackOutcome> {
    if (!orderId) throw missingParam('order_id');
    voucherId(id);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rollbackOnce(scope, id, orderId);
      } catch (err) {
        // A concurrent delete locks voucher then redemptions; we lock the other way round.
        if (pgCode(err) === '40P01' && attempt < MAX_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  private async rollbackOnce(scope: Scope, voucherId: string, orderId: string): Promise<RollbackOutcome> {
    if (!(await this.vouchers.get(scope, voucherId))) throw await this.voucherNotFound(scope, voucherId);
    return transaction(this.pool, async (tx) => {
      const redemption = await this.redemptions.markRolledBack(tx, scope, voucherId, orderId);
      if (!redemption) {
        const prior = await this.redemptions.find(tx, scope, voucherId, orderId);
        const voucher = await this.vouchers.get(scope, voucherId, tx);
        if (!prior || !voucher) throw notFound('redemption', orderId);
        return { voucher, redemption: prior, alreadyRolledBack: true };
      }
      const before = await this.redemptions.lockVoucher(tx, voucherId);
      const timesUsed = before.timesUsed - 1;
      const after = await this.redemptions.setUses(
        tx,
        voucherId,
        timesUsed,
        statusAfterRollback({ ...before, timesUsed }),
      );
      await recordVoucherEvents(tx, [voucherEvent('voucher.updated', after.voucher, after.now)]);
      await recordVoucherEvents(tx, [
        transactionEvent('transaction.updated', after.voucher, redemption, 'reversed', {
          rolled_back_at: redemption.rolledBackAt?.toISOString(),
        }),
      ]);
      return { voucher: after, redemption, alreadyRolledBack: false };
    });
  }

  /**
   * Persists `expired` on vouchers whose expires_at passed, batch by batch until none is due,
   * each batch with its voucher.updated events in one transaction. Returns how many moved.
   */
  async sweepExpired(batchSize = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await transaction(this.pool, async (tx) => {
        const expired = await this.vouchers.expireDue(tx, batchSize);
        if (expired.length > 0)
          await recordVoucherEvents(
            tx,
            expired.map((r) => voucherEvent('voucher.updated', r.voucher, r.now)),
          );
        return expired.length;
      });
      total += n;
      if (n < batchSize) return total;
    }
  }

  /** The slow path (see the top of this file). */
  private async redeemInTransaction(
    tx: PoolClient,
    scope: Scope,
    v: VoucherRecord,
    plan: Plan,
  ): Promise<RedemptionResult> {
    const attempt = redemptionOf(v, plan, newId('transaction'), new Date());
    let redemption = await this.redemptions.insert(tx, scope, attempt);
    if (!redemption) {
      const prior = await this.redemptions.lockExisting(tx, v.id, plan.input.orderId);
      if (!prior) throw new Retry(); // the voucher was deleted meanwhile
      if (prior.rolledBackAt === null) return replayOf(v, prior, plan);
      // The order's earlier redemption was rolled back: it redeems afresh.
      redemption = await this.redemptions.renew(tx, attempt);
    }
    // Every event whose content is known before the lock is written before it: the lock is
    // then held for the conditional UPDATE and the commit only. A refusal rolls them back.
    await recordVoucherEvents(tx, redemptionEvents(v, redemption));

    const after = await this.redemptions.consumeUse(tx, scope, v.id, plan.input.orderId);
    if (!after) throw new Refusal(null);
    const customerId = plan.input.customerId;
    if (after.voucher.maxUsesPerCustomer !== null && customerId !== null) {
      const used = await this.redemptions.customerUses(tx, v.id, customerId);
      const overLimit = customerLimitRefusal(after.voucher, used, 0);
      if (overLimit) throw new Refusal(overLimit);
    }
    // Once per voucher lifetime (its last use): the only event that needs the state after the UPDATE.
    if (after.voucher.status !== 'active')
      await recordVoucherEvents(tx, [voucherEvent('voucher.updated', after.voucher, after.now)]);
    return redemptionResult(v, redemption, false);
  }

  /** Why the conditional UPDATE matched nothing; null when the voucher is redeemable again. */
  private async whyRefused(scope: Scope, voucherId: string): Promise<HallmarkError | null> {
    const current = await this.vouchers.get(scope, voucherId);
    if (!current) return voucherNotFound();
    return refusalError(current.voucher, current.now);
  }

  /** transaction.failed for a refused redemption of an existing voucher, committed on its own. */
  private async recordFailure(v: VoucherRecord, plan: Plan, error: HallmarkError): Promise<void> {
    const attempt = redemptionOf(v, plan, newId('transaction'), new Date());
    await transaction(this.pool, (tx) =>
      recordVoucherEvents(tx, [
        transactionEvent('transaction.failed', v, attempt, 'failed', {
          failure_code: error.code,
          failure_message: error.message,
        }),
      ]),
    );
  }
}

/** A voucher's terms alone (a copy: nothing else of the record is kept). */
function termsOf(v: VoucherRecord): VoucherTerms {
  const { id, enterpriseId, livemode, code, type, value, currency, maxUsesPerCustomer } = v;
  return { id, enterpriseId, livemode, code, type, value, currency, maxUsesPerCustomer };
}
