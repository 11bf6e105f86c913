// The one idempotency-key lookup of the service: MintBatch (`certificate_batches`), Transfer
// (`certificate_transfers`) and CreateVouchers (`certificate_voucher_requests`) each record a
// request's key and the hash of its body per enterprise and mode. The same key with the same
// body is a replay (the row is answered again); with another body it is a conflict.
import { HallmarkError, type Queryable } from '@hallmark/kit';
import type { Scope } from './domain/certificate.js';

/** The tables that record a request under an idempotency key, and the column holding the key. */
const KEY_COLUMN = {
  certificate_batches: 'idempotency_key',
  certificate_transfers: 'transfer_key',
  certificate_voucher_requests: 'idempotency_key',
} as const;

export type IdempotentTable = keyof typeof KEY_COLUMN;

/**
 * The row recorded under `key` in the scope, or null when the key is new. A row recorded for
 * another request body (`requestHash`) is `resource_already_exists`, param `idempotency_key`.
 */
export async function findByIdempotencyKey<R extends { request_hash: string }>(
  db: Queryable,
  table: IdempotentTable,
  scope: Scope,
  key: string,
  requestHash: string,
): Promise<R | null> {
  const { rows } = await db.query<R>(
    `SELECT * FROM ${table} WHERE enterprise_id = $1 AND livemode = $2 AND ${KEY_COLUMN[table]} = $3`,
    [scope.enterpriseId, scope.livemode, key],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.request_hash !== requestHash) {
    throw new HallmarkError('resource_already_exists', {
      param: 'idempotency_key',
      message: 'This idempotency key was used with a different request.',
    });
  }
  return row;
}
