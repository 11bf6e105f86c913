// SQL of the allowlist entries (migrations/0203_allowlist.sql).
import type { Pool, Queryable } from '@hallmark/kit';
import type { AllowlistEntryRecord, AllowlistStatus } from './domain.js';

interface EntryRow {
  address: string;
  status: AllowlistStatus;
  error: string | null;
  last_attempt: Date | null;
  retry_count: number;
  transaction_hash: string | null;
  block_number: string | null;
  created_at: Date;
  updated_at: Date;
}

function fromRow(r: EntryRow): AllowlistEntryRecord {
  return {
    address: r.address,
    status: r.status,
    error: r.error,
    lastAttempt: r.last_attempt,
    retryCount: r.retry_count,
    transactionHash: r.transaction_hash,
    blockNumber: r.block_number === null ? null : Number(r.block_number),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class AllowlistStore {
  constructor(private readonly pool: Pool) {}

  /**
   * Requests an address: a new entry is pending; a failed one is queued again (pending, its
   * error cleared); a pending or successful one stays as it is.
   */
  async request(
    address: string,
    requestedBy: string | null,
    db: Queryable = this.pool,
  ): Promise<AllowlistEntryRecord> {
    // One statement, so the requester is recorded with the entry (whatever `db` is).
    const { rows } = await db.query<EntryRow>(
      `WITH entry AS (
         INSERT INTO allowlist_entries (address, requested_by) VALUES ($1, $2)
         ON CONFLICT (address) DO UPDATE SET
           status = CASE WHEN allowlist_entries.status = 'failed' THEN 'pending' ELSE allowlist_entries.status END,
           error = CASE WHEN allowlist_entries.status = 'failed' THEN NULL ELSE allowlist_entries.error END,
           updated_at = CASE WHEN allowlist_entries.status = 'failed' THEN now() ELSE allowlist_entries.updated_at END
         RETURNING *),
       requester AS (
         INSERT INTO allowlist_requesters (address, enterprise_id)
         SELECT address, $2 FROM entry WHERE $2::text IS NOT NULL
         ON CONFLICT DO NOTHING)
       SELECT * FROM entry`,
      [address, requestedBy],
    );
    return fromRow(rows[0]!);
  }

  /** The entry of an address as `enterpriseId` may see it: null unless it asked for it. */
  async getFor(address: string, enterpriseId: string): Promise<AllowlistEntryRecord | null> {
    const { rows } = await this.pool.query<EntryRow>(
      `SELECT e.* FROM allowlist_entries e
       JOIN allowlist_requesters r ON r.address = e.address AND r.enterprise_id = $2
       WHERE e.address = $1`,
      [address, enterpriseId],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async get(address: string, db: Queryable = this.pool): Promise<AllowlistEntryRecord | null> {
    const { rows } = await db.query<EntryRow>('SELECT * FROM allowlist_entries WHERE address = $1', [
      address,
    ]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** The oldest pending entries. */
  async pending(limit: number): Promise<AllowlistEntryRecord[]> {
    const { rows } = await this.pool.query<EntryRow>(
      `SELECT * FROM allowlist_entries WHERE status = 'pending' ORDER BY created_at, address LIMIT $1`,
      [limit],
    );
    return rows.map(fromRow);
  }

  async markSuccess(
    addresses: string[],
    ref: { transactionHash: string | null; blockNumber: number | null },
  ): Promise<void> {
    if (addresses.length === 0) return;
    await this.pool.query(
      `UPDATE allowlist_entries SET status = 'success', error = NULL, last_attempt = now(),
         transaction_hash = COALESCE($2, transaction_hash), block_number = COALESCE($3, block_number),
         updated_at = now()
       WHERE address = ANY($1::text[]) AND status = 'pending'`,
      [addresses, ref.transactionHash, ref.blockNumber],
    );
  }

  async markFailed(addresses: string[], error: string): Promise<void> {
    if (addresses.length === 0) return;
    await this.pool.query(
      `UPDATE allowlist_entries SET status = 'failed', error = $2, last_attempt = now(), updated_at = now()
       WHERE address = ANY($1::text[]) AND status = 'pending'`,
      [addresses, error.slice(0, 1000)],
    );
  }

  /**
   * The retry job's step: failed entries with retries left whose last attempt is at least
   * `delayMs` old go back to pending, counting the retry. Returns their addresses.
   */
  async requeueFailed(maxRetries: number, delayMs: number, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ address: string }>(
      `UPDATE allowlist_entries SET status = 'pending', retry_count = retry_count + 1, updated_at = now()
       WHERE address IN (
         SELECT address FROM allowlist_entries
         WHERE status = 'failed' AND retry_count < $1
           AND (last_attempt IS NULL OR last_attempt <= now() - make_interval(secs => $2::double precision / 1000))
         ORDER BY last_attempt NULLS FIRST, address LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING address`,
      [maxRetries, delayMs, limit],
    );
    return rows.map((r) => r.address);
  }
}
