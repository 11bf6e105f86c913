// SQL of claiming a certificate voucher (`ClaimVoucher`, ./claim.ts): the claim recorded under
// the voucher's row lock with its `claimed` provenance, and the repair of claims whose transfer
// failed or was never recorded (retried under a new transfer key, or undone).
import { Encryptor, HallmarkError, transaction, type Pool, type Queryable } from '@hallmark/kit';
import { recordCertificateUpdated } from '../certificate-events-store.js';
import { handoverRefused } from '../domain/handover.js';
import { takeHandovers } from '../handover-store.js';
import { claimRefusal, type VoucherRecord } from './domain.js';
import { findVoucherRow, fromRow, type VoucherRow } from './rows-store.js';

export interface ClaimantInput {
  userId: string;
  /** The user's own enterprise (from their session), which may differ from the issuer. */
  enterpriseId: string;
  email: string | null;
  /** The recipient's custodial wallet. */
  toAddress: string;
}

/**
 * The transfer key of a voucher's n-th claim transfer: `claim:<id>` for the first (as before
 * retries existed), `claim:<id>:<n>` after; never reused, even by a claim after an undo.
 */
const claimKey = (voucherId: string, n: number) =>
  n <= 1 ? `claim:${voucherId}` : `claim:${voucherId}:${n}`;

/**
 * The claims the repair pass looks at, oldest first: open claims only (claimed, transfer not
 * seen confirmed), read through their own index (migration 3102), so a pass never reads the
 * unclaimed vouchers nor the claims settled long ago.
 */
export const CLAIMS_TO_REPAIR = `SELECT v.*, c.token_id, c.transaction_hash, c.block_number, c.status AS certificate_status,
    c.holder_address, t.status AS transfer_status
  FROM certificate_vouchers v JOIN certificates c ON c.id = v.certificate_id
  LEFT JOIN certificate_transfers t ON t.enterprise_id = v.enterprise_id
    AND t.livemode = v.livemode AND t.transfer_key = v.claim_transfer_key
 WHERE v.claimed_at IS NOT NULL AND v.claim_settled_at IS NULL
   AND (t.status = 'failed' OR (t.id IS NULL AND v.claimed_at < now() - interval '10 seconds'))
 ORDER BY v.claimed_at LIMIT $1`;

/**
 * Open claims whose transfer is confirmed leave the repair pass's index: such a claim never
 * needs repair again (an undo or a retry only follows a transfer that failed or never was).
 */
export const SETTLE_CONFIRMED_CLAIMS = `UPDATE certificate_vouchers v SET claim_settled_at = now()
  FROM certificate_transfers t
 WHERE v.claimed_at IS NOT NULL AND v.claim_settled_at IS NULL
   AND t.enterprise_id = v.enterprise_id AND t.livemode = v.livemode
   AND t.transfer_key = v.claim_transfer_key AND t.status = 'confirmed'`;

export class CertificateVoucherClaimStore {
  constructor(
    private readonly pool: Pool,
    /** HALLMARK_ENCRYPTION_KEYS; null: a voucher with a recipient e-mail cannot be checked. */
    private readonly encryptor: Encryptor | null,
  ) {}

  /**
   * Records the claim under the voucher's row lock: the recipient, their wallet, the transfer
   * key, and a `claimed` provenance entry (actor = the recipient's user id, from the holding
   * wallet to the recipient's), all in one transaction. The same recipient again changes
   * nothing (`replay`); every refusal of `claimRefusal` is thrown. `isIssuerWallet` tells
   * whether the certificate's holder is still a custodial wallet of the issuer (else the
   * transfer would be refused, so the voucher is not claimed).
   */
  async claim(
    voucherId: string,
    claimant: ClaimantInput,
    isIssuerWallet: (address: string, enterpriseId: string) => Promise<boolean>,
  ): Promise<{ voucher: VoucherRecord; replay: boolean }> {
    return transaction(this.pool, async (tx) => {
      const row = await findVoucherRow(tx, voucherId, true);
      const voucher = fromRow(row);
      const refusal = claimRefusal(voucher, {
        userId: claimant.userId,
        email: claimant.email,
        recipientEmail: this.decrypt(row.recipient_email_enc),
      });
      if (refusal === 'replay') return { voucher, replay: true };
      if (refusal) throw refusal;
      if (!(await isIssuerWallet(row.holder_address, voucher.enterpriseId))) {
        throw new HallmarkError('validation_failed', {
          param: 'voucher_id',
          message: 'The certificate of this voucher is no longer held by its issuer.',
        });
      }
      // The hold stays this voucher's (no lapse) until its transfer confirms or the claim is
      // undone; a gift or transfer holding the certificate refuses the claim (409).
      const blocked = await takeHandovers(
        tx,
        'voucher',
        [{ certificateId: voucher.certificateId, id: voucher.id, until: null }],
        { param: 'voucher_id', doing: 'this voucher cannot be claimed' },
      );
      if (blocked.size > 0) {
        const holder = blocked.get(voucher.certificateId) ?? null;
        throw handoverRefused(voucher.certificateId, holder && { ...holder, id: '' }, {
          param: 'voucher_id',
          doing: 'this voucher cannot be claimed',
        });
      }
      const key = claimKey(voucher.id, row.claim_seq + 1);
      const { rows: updated } = await tx.query<{ claimed_at: Date }>(
        `UPDATE certificate_vouchers SET claimed_by = $2, claimed_by_enterprise = $3, claimed_at = now(),
           claim_to_address = $4, claim_transfer_key = $5, claim_attempts = 1, claim_seq = $6, updated_at = now()
         WHERE id = $1 RETURNING claimed_at`,
        [voucher.id, claimant.userId, claimant.enterpriseId, claimant.toAddress, key, row.claim_seq + 1],
      );
      await tx.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address)
         VALUES ($1, 'claimed', $2, $3, $4)`,
        [voucher.certificateId, claimant.userId, row.holder_address, claimant.toAddress],
      );
      await recordCertificateUpdated(tx, voucher.certificateId, 'claimed');
      return {
        voucher: {
          ...voucher,
          claimedBy: claimant.userId,
          claimedAt: updated[0]!.claimed_at,
          claimToAddress: claimant.toAddress,
          claimTransferKey: key,
        },
        replay: false,
      };
    });
  }

  /** Marks the open claims whose transfer is confirmed settled; answers how many. */
  async settleConfirmedClaims(): Promise<number> {
    return (await this.pool.query(SETTLE_CONFIRMED_CLAIMS)).rowCount ?? 0;
  }

  /**
   * Claims whose current transfer failed (the chain refused it, or it reverted) or was never
   * recorded: the repair pass sends them (again) or undoes them. Oldest first.
   */
  async claimsToRepair(
    limit = 50,
  ): Promise<Array<{ voucher: VoucherRecord; transfer: 'failed' | 'missing' }>> {
    // `missing`: the claim committed but the process died before its transfer was recorded
    // (given a few seconds, so a claim still on its way is left to finish by itself).
    const { rows } = await this.pool.query<VoucherRow & { transfer_status: string | null }>(
      CLAIMS_TO_REPAIR,
      [limit],
    );
    return rows.map((r) => ({ voucher: fromRow(r), transfer: r.transfer_status ? 'failed' : 'missing' }));
  }

  /**
   * The next step for a claim whose transfer `failedKey` failed, under the voucher's row lock:
   * `retry` with a new transfer key (claimKey), or `undone` after `maxAttempts`
   * (the voucher is available again; a `claim_reverted` provenance entry says so). Null when
   * the claim moved on meanwhile (another pass handled it), so concurrent repairs are safe.
   */
  async nextClaimAttempt(
    voucherId: string,
    failedKey: string,
    maxAttempts: number,
  ): Promise<{ action: 'retry' | 'undone'; voucher: VoucherRecord } | null> {
    return transaction(this.pool, async (tx) => {
      const row = await findVoucherRow(tx, voucherId, true);
      if (row.claim_transfer_key !== failedKey || !row.claimed_at) return null;
      if (row.claim_attempts >= maxAttempts) {
        return { action: 'undone', voucher: await this.undoClaim(tx, row) };
      }
      const key = claimKey(row.id, row.claim_seq + 1);
      await tx.query(
        `UPDATE certificate_vouchers SET claim_transfer_key = $2, claim_attempts = claim_attempts + 1,
           claim_seq = $3, updated_at = now()
         WHERE id = $1`,
        [row.id, key, row.claim_seq + 1],
      );
      return { action: 'retry', voucher: { ...fromRow(row), claimTransferKey: key } };
    });
  }

  /** Undoes a claim that cannot be completed (see nextClaimAttempt); the caller holds the lock. */
  async undo(voucherId: string, failedKey: string): Promise<VoucherRecord | null> {
    return transaction(this.pool, async (tx) => {
      const row = await findVoucherRow(tx, voucherId, true);
      if (row.claim_transfer_key !== failedKey || !row.claimed_at) return null;
      return this.undoClaim(tx, row);
    });
  }

  private async undoClaim(tx: Queryable, row: VoucherRow): Promise<VoucherRecord> {
    // Claimable again: the hold lapses with the voucher again (giving it back is no hand-over:
    // allowed even while reported stolen).
    await takeHandovers(
      tx,
      'voucher',
      [{ certificateId: row.certificate_id, id: row.id, until: row.expires_at }],
      { evenIfReportedStolen: true },
    );
    await tx.query(
      `UPDATE certificate_vouchers SET claimed_by = NULL, claimed_by_enterprise = NULL, claimed_at = NULL,
         claim_to_address = NULL, claim_transfer_key = NULL, claim_attempts = 0, updated_at = now()
       WHERE id = $1`,
      [row.id],
    );
    await tx.query(
      `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address)
       VALUES ($1, 'claim_reverted', $2, $3, $4)`,
      [row.certificate_id, row.claimed_by, row.holder_address, row.claim_to_address],
    );
    await recordCertificateUpdated(tx, row.certificate_id, 'claim_reverted');
    return {
      ...fromRow(row),
      claimedBy: null,
      claimedAt: null,
      claimToAddress: null,
      claimTransferKey: null,
    };
  }

  /** The recipient e-mail of a voucher, decrypted (for the claim check only; never shown). */
  async recipientEmail(voucherId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ recipient_email_enc: string | null }>(
      'SELECT recipient_email_enc FROM certificate_vouchers WHERE id = $1',
      [voucherId],
    );
    return this.decrypt(rows[0]?.recipient_email_enc ?? null);
  }

  private decrypt(envelope: string | null): string | null {
    if (!envelope) return null;
    if (!this.encryptor) {
      throw new HallmarkError('service_unavailable', {
        message: 'The voucher cannot be checked: no encryption key is configured.',
      });
    }
    return this.encryptor.decrypt(envelope);
  }
}
