// All SQL of the vouchers table: create, read, list, update, delete and the expiry sweep.
// Every query is scoped by (enterprise_id, livemode); service.ts holds the transactions and
// writes each change's event (recordVoucherEvents) in the same one. Redemptions' SQL lives in
// redemption-store.ts.
import {
  HallmarkError,
  newId,
  recordEvents,
  type EventInput,
  type EventType,
  type Pool,
  type Queryable,
  type VoucherId,
} from '@hallmark/kit';
import type { ListQuery, NewVoucher } from './domain/validation.js';
import type { Scope, VoucherRecord, VoucherStatus } from './domain/voucher.js';

export const EVENT_SOURCE = 'vouchers';

/** A voucher read together with the database clock, so status derivation matches SQL's now(). */
export interface VoucherRead {
  voucher: VoucherRecord;
  now: Date;
}

interface VoucherRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  code: string;
  type: VoucherRecord['type'];
  /** numeric(21, 2): pg answers it as text. */
  value: string | number;
  currency: string | null;
  status: VoucherStatus;
  max_uses: number | null;
  max_uses_per_customer: number | null;
  times_used: number;
  expires_at: Date | null;
  description: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  db_now?: Date;
}

export function voucherFromRow(r: VoucherRow): VoucherRecord {
  return {
    id: r.id as VoucherId,
    enterpriseId: r.enterprise_id,
    livemode: r.livemode,
    code: r.code,
    type: r.type,
    value: Number(r.value),
    currency: r.currency,
    status: r.status,
    maxUses: r.max_uses,
    maxUsesPerCustomer: r.max_uses_per_customer,
    timesUsed: r.times_used,
    expiresAt: r.expires_at,
    description: r.description,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const read = (r: VoucherRow): VoucherRead => ({
  voucher: voucherFromRow(r),
  now: r.db_now ?? new Date(),
});

/** Effective-status filters in SQL, matching domain/voucher.ts effectiveStatus. */
const STATUS_FILTER: Record<VoucherStatus, string> = {
  active: "status = 'active' AND (expires_at IS NULL OR expires_at > now())",
  expired: "(status = 'expired' OR (status = 'active' AND expires_at <= now()))",
  used: "status = 'used'",
  inactive: "status = 'inactive'",
};

/** Writes the service's events in the caller's transaction (the kit outbox). */
export async function recordVoucherEvents(tx: Queryable, events: EventInput<EventType>[]): Promise<void> {
  await recordEvents(tx, EVENT_SOURCE, events);
}

export class VouchersStore {
  constructor(readonly pool: Pool) {}

  /** Inserts the voucher; a duplicate code (case-insensitive, per enterprise and mode) is 409. */
  async insert(tx: Queryable, scope: Scope, input: NewVoucher): Promise<VoucherRead> {
    try {
      const { rows } = await tx.query<VoucherRow>(
        `INSERT INTO vouchers (id, enterprise_id, livemode, code, type, value, currency, max_uses,
           max_uses_per_customer, expires_at, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *, now() AS db_now`,
        [
          newId('voucher'),
          scope.enterpriseId,
          scope.livemode,
          input.code,
          input.type,
          input.value,
          input.currency,
          input.maxUses,
          input.maxUsesPerCustomer,
          input.expiresAt,
          input.description,
        ],
      );
      return read(rows[0]!);
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'vouchers_code_key') {
        throw new HallmarkError('voucher_code_exists', { param: 'code', cause: err });
      }
      throw err;
    }
  }

  async get(scope: Scope, id: string, db: Queryable = this.pool): Promise<VoucherRead | null> {
    const { rows } = await db.query<VoucherRow>(
      'SELECT *, now() AS db_now FROM vouchers WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    return rows[0] ? read(rows[0]) : null;
  }

  /** Whether `id` exists in the other mode (test vs live), for the 404's hint. */
  async existsInOtherMode(scope: Scope, id: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      'SELECT 1 FROM vouchers WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    return rows.length > 0;
  }

  async findByCode(scope: Scope, code: string): Promise<VoucherRead | null> {
    const { rows } = await this.pool.query<VoucherRow>(
      'SELECT *, now() AS db_now FROM vouchers WHERE enterprise_id = $1 AND livemode = $2 AND lower(code) = lower($3)',
      [scope.enterpriseId, scope.livemode, code],
    );
    return rows[0] ? read(rows[0]) : null;
  }

  async list(scope: Scope, q: ListQuery): Promise<{ vouchers: VoucherRead[]; total: number }> {
    const where = `enterprise_id = $1 AND livemode = $2${q.status ? ` AND ${STATUS_FILTER[q.status]}` : ''}`;
    // One snapshot for the page and its total.
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<VoucherRow>(
        `SELECT *, now() AS db_now FROM vouchers WHERE ${where}
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [scope.enterpriseId, scope.livemode, q.limit, (q.page - 1) * q.limit],
      );
      const total = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM vouchers WHERE ${where}`,
        [scope.enterpriseId, scope.livemode],
      );
      await client.query('COMMIT');
      return { vouchers: rows.map(read), total: total.rows[0]!.n };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * The voucher, row-locked for a read-modify-write. FOR NO KEY UPDATE, not FOR UPDATE: every
   * in-flight redemption holds a KEY SHARE lock on the row (its redemption row's foreign key),
   * which FOR UPDATE waits on — under a steady stream of redemptions, forever.
   */
  async lockForUpdate(tx: Queryable, scope: Scope, id: string): Promise<VoucherRead | null> {
    const { rows } = await tx.query<VoucherRow>(
      `SELECT *, now() AS db_now FROM vouchers WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR NO KEY UPDATE`,
      [id, scope.enterpriseId, scope.livemode],
    );
    return rows[0] ? read(rows[0]) : null;
  }

  async setStatusAndMaxUses(
    tx: Queryable,
    id: string,
    status: VoucherStatus,
    maxUses: number | null,
  ): Promise<VoucherRead> {
    const { rows } = await tx.query<VoucherRow>(
      `UPDATE vouchers SET status = $2, max_uses = $3, version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING *, now() AS db_now`,
      [id, status, maxUses],
    );
    return read(rows[0]!);
  }

  /** Permanent: the voucher and its redemption records go (ON DELETE CASCADE). */
  async delete(tx: Queryable, scope: Scope, id: string): Promise<VoucherRead | null> {
    const { rows } = await tx.query<VoucherRow>(
      'DELETE FROM vouchers WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 RETURNING *, now() AS db_now',
      [id, scope.enterpriseId, scope.livemode],
    );
    return rows[0] ? read(rows[0]) : null;
  }

  /**
   * Moves one batch of active vouchers whose expires_at passed to `expired`. SKIP LOCKED:
   * replicas share the work, and a row locked by an in-flight redemption is taken on a later
   * pass. Returns the vouchers it moved.
   */
  async expireDue(tx: Queryable, batchSize: number): Promise<VoucherRead[]> {
    const { rows } = await tx.query<VoucherRow>(
      `WITH due AS (
         SELECT id FROM vouchers WHERE status = 'active' AND expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED)
       UPDATE vouchers v SET status = 'expired', version = v.version + 1, updated_at = now()
       FROM due WHERE v.id = due.id RETURNING v.*, now() AS db_now`,
      [batchSize],
    );
    return rows.map(read);
  }
}
