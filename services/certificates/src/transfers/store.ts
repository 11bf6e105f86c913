// SQL of `certificate_transfers` (migrations 0301 and 0501): a transfer's record, found by its
// key, and the journal its signings, fee bumps and broadcasts are persisted in before anything is
// sent; its confirmation writes the holder, provenance and certificate.transferred together.
import { recordEvents, transaction, type Pool, type Queryable } from '@hallmark/kit';
import type { TxJournal } from '../chain/tx-sender.js';
import type { Scope } from '../domain/certificate.js';
import { findByIdempotencyKey } from '../idempotency-store.js';
import { releaseHandover } from '../handover-store.js';
import { certificateFromRow, type CertificateRow } from '../certificate-rows.js';
import { certificateEventObject, EVENT_SOURCE } from '../domain/certificate.js';
import { clearReport } from '../stolen-store.js';

export type TransferStatus = 'pending' | 'signed' | 'sent' | 'confirmed' | 'failed';
export const OPEN: TransferStatus[] = ['pending', 'signed', 'sent'];

export interface TransferRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  transfer_key: string;
  request_hash: string;
  certificate_id: string;
  token_id: string;
  from_address: string;
  to_address: string;
  to_user_id: string | null;
  actor_id: string | null;
  /** `recovery`: a brand recovery (migration 3321), with its `reason`. */
  purpose: 'transfer' | 'recovery';
  reason: string | null;
  nonce: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  /** Earlier hashes of this transfer (fee bumps, re-signings), oldest first. */
  replaced_hashes: string[];
  block_number: string | null;
  status: TransferStatus;
  last_error: string | null;
  /** A holder-signed TransferPermit (an import from an owner's wallet, migration 3333), else null. */
  permit_signature: string | null;
  permit_deadline: string | null;
}

/** An open transfer as the sender reads it: with the age of its current broadcast. */
export type SendingRow = TransferRow & { sent_age_ms: number | null };

export interface NewTransfer {
  key: string;
  requestHash: string;
  certificateId: string;
  tokenId: string;
  from: string;
  to: string;
  toUserId: string | null;
  actorId: string | null;
  permit?: { signature: string; deadline: bigint } | null;
  purpose: 'transfer' | 'recovery';
  reason: string | null;
}

export class TransferStore implements TxJournal {
  constructor(private readonly pool: Pool) {}

  /** The transfer recorded under `key` in the scope (null: a new key); another request's key conflicts. */
  byKey(scope: Scope, key: string, requestHash: string): Promise<TransferRow | null> {
    return findByIdempotencyKey<TransferRow>(this.pool, 'certificate_transfers', scope, key, requestHash);
  }

  async byId(id: string): Promise<TransferRow> {
    const { rows } = await this.pool.query<TransferRow>('SELECT * FROM certificate_transfers WHERE id = $1', [
      id,
    ]);
    return rows[0]!;
  }

  /** The certificate under a row lock (in `tx`), within the scope. */
  async lockCertificate(
    tx: Queryable,
    scope: Scope,
    certificateId: string,
  ): Promise<CertificateRow | undefined> {
    const { rows } = await tx.query<CertificateRow>(
      'SELECT * FROM certificates WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE',
      [certificateId, scope.enterpriseId, scope.livemode],
    );
    return rows[0];
  }

  async insert(tx: Queryable, scope: Scope, t: NewTransfer): Promise<TransferRow> {
    const { rows } = await tx.query<TransferRow>(
      `INSERT INTO certificate_transfers (enterprise_id, livemode, transfer_key, request_hash, certificate_id,
         token_id, from_address, to_address, to_user_id, actor_id, purpose, reason, permit_signature,
         permit_deadline)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING *`,
      [
        scope.enterpriseId,
        scope.livemode,
        t.key,
        t.requestHash,
        t.certificateId,
        t.tokenId,
        t.from,
        t.to,
        t.toUserId,
        t.actorId,
        t.purpose,
        t.reason,
        t.permit?.signature ?? null,
        t.permit?.deadline.toString() ?? null,
      ],
    );
    return rows[0]!;
  }

  /** The open transfers, oldest first. */
  async open(limit: number): Promise<SendingRow[]> {
    const { rows } = await this.pool.query<SendingRow>(
      `SELECT *, (extract(epoch FROM now() - sent_at) * 1000)::float8 AS sent_age_ms
       FROM certificate_transfers WHERE status IN ('pending', 'signed', 'sent') ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows;
  }

  async signed(id: string, s: { signer: string; nonce: number; raw: string; hash: string }): Promise<void> {
    // A re-signing (the old nonce went elsewhere) keeps the old hash with the others.
    await this.pool.query(
      `UPDATE certificate_transfers SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
         replaced_hashes = CASE WHEN tx_hash IS NULL THEN replaced_hashes
                                ELSE array_append(replaced_hashes, tx_hash) END,
         sent_at = NULL, last_error = NULL, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, s.signer, s.nonce, s.raw, s.hash],
    );
  }

  async replaced(id: string, prevHash: string, raw: string, hash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE certificate_transfers SET status = 'signed', raw_tx = $3, tx_hash = $4,
         replaced_hashes = array_append(replaced_hashes, tx_hash), sent_at = NULL, updated_at = now()
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'sent')`,
      [id, prevHash, raw, hash],
    );
    return (rowCount ?? 0) > 0;
  }

  async sent(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE certificate_transfers SET status = 'sent', sent_at = COALESCE(sent_at, now()), updated_at = now()
       WHERE id = $1 AND status IN ('signed', 'sent')`,
      [id],
    );
  }

  /**
   * Marks the transfer failed and gives up its own hand-over hold (a claim's transfer leaves
   * its voucher's or gift's hold alone: that claim retries or is undone).
   */
  async fail(id: string, reason: string, blockNumber: number | null): Promise<void> {
    await transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ certificate_id: string }>(
        `UPDATE certificate_transfers SET status = 'failed', last_error = $2, block_number = $3, updated_at = now()
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent') RETURNING certificate_id`,
        [id, reason, blockNumber],
      );
      if (rows[0]) await releaseHandover(tx, rows[0].certificate_id, { kind: 'transfer', id: String(id) });
    });
  }

  async noteError(id: string, message: string): Promise<void> {
    await this.pool.query(
      'UPDATE certificate_transfers SET last_error = $2, updated_at = now() WHERE id = $1',
      [id, message.slice(0, 1000)],
    );
  }

  /**
   * Records a confirmed transfer in one transaction: `confirmed` with the mined hash as
   * `tx_hash` (a replaced one that won moves back there), the certificate's new holder, a
   * `transferred` provenance entry and certificate.transferred. False when it was confirmed already.
   */
  async confirm(row: TransferRow, txHash: string, blockNumber: number, relayer: string): Promise<boolean> {
    return transaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE certificate_transfers SET status = 'confirmed', tx_hash = $2, block_number = $3, last_error = NULL,
           replaced_hashes = CASE WHEN tx_hash IS NULL OR tx_hash = $2 THEN replaced_hashes
                                  ELSE array_append(array_remove(replaced_hashes, $2), tx_hash) END,
           updated_at = now()
         WHERE id = $1 AND status <> 'confirmed'`,
        [row.id, txHash, blockNumber],
      );
      if (!rowCount) return false;
      const { rows } = await tx.query<CertificateRow>(
        // The certificate moved: whichever hand-over held it (this transfer, or the voucher
        // claim or gift it completes) has ended, so its hold is given up with the move.
        `UPDATE certificates SET holder_address = $2, handover_kind = NULL, handover_id = NULL,
           handover_until = NULL, updated_at = now()
         WHERE id = $1 RETURNING *`,
        [row.certificate_id, row.to_address],
      );
      const recovery = row.purpose === 'recovery';
      await tx.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
         VALUES ($1, $7, $2, $3, $4, $5, $6)`,
        [
          row.certificate_id,
          row.actor_id ?? relayer,
          row.from_address,
          row.to_address,
          txHash,
          blockNumber,
          recovery ? 'recovered' : 'transferred',
        ],
      );
      const cert = certificateFromRow(rows[0]!);
      // A brand recovery ends the certificate's open lost/stolen report (certificate.recovered).
      if (recovery) {
        await clearReport(tx, cert, {
          by: { type: 'brand', id: row.actor_id ?? relayer },
          reason: row.reason ?? 'Recovered by the brand.',
          recoveredTo: row.to_address,
        });
      }
      await recordEvents(tx, EVENT_SOURCE, [
        {
          type: 'certificate.transferred' as const,
          data: {
            object: certificateEventObject(cert) as { id: string; tokenId: number; holderAddress: string },
            transfer: {
              from: row.from_address,
              to: row.to_address,
              toUserId: row.to_user_id,
              transactionHash: txHash,
              blockNumber,
            },
          },
          enterpriseId: cert.enterpriseId,
          livemode: cert.livemode,
        },
      ]);
      return true;
    });
  }
}
