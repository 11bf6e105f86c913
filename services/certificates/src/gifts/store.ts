// All SQL of gifts (table `gifts`, migration 0801). Recipient contact data is encrypted here
// (kit Encryptor, HALLMARK_ENCRYPTION_KEYS) and decrypted only to send a notification.
// Every state move is one conditional UPDATE (or DELETE) on the current status, so of any
// number of racing claims, revokes and expiries exactly one wins.
import { Encryptor, HallmarkError, notFound, transaction, type Pool } from '@hallmark/kit';
import { certificateFromRow, type CertificateRow } from '../certificate-rows.js';
import { recordCertificateUpdated } from '../certificate-events-store.js';
import type { CertificateRecord, Scope } from '../domain/certificate.js';
import { RecipientEmailIndex } from '../domain/email-index.js';
import { handoverRefused } from '../domain/handover.js';
import { releaseHandover, takeHandovers } from '../handover-store.js';
import { recordResaleEvents } from './resale-store.js';
import { fromRow, type GiftRow } from './rows.js';
import {
  phoneHash,
  type Approval,
  type GiftKind,
  type CreateGiftInput,
  type GiftRecord,
  type GiftStatus,
  type NotificationState,
} from './domain/gift.js';

export interface GiftContacts {
  email: string;
  phone: string | null;
  senderEmail: string | null;
}

export interface NewGift extends CreateGiftInput {
  id: string;
  tokenHash: string;
  creatorId: string;
  senderEmail: string | null;
  expiresAt: Date;
  /** Absent: a gift. A resale records `resold` and its lifecycle events (./resale-store.ts). */
  kind?: GiftKind;
  approval?: Approval | null;
}

/** A pending gift raced this one past the hold (old data without one): the same 409. */
const alreadyGifted = () =>
  new HallmarkError('resource_locked', {
    param: 'certificateId',
    message: 'This certificate is already in a pending gift; it cannot be gifted until that gift ends.',
  });

export class GiftStore {
  private readonly enc: Encryptor;
  /** The recipient e-mail's blind index (search by e-mail), with the same keys. */
  private readonly emailIndex: RecipientEmailIndex;

  constructor(
    private readonly pool: Pool,
    encryptionKeys: string,
  ) {
    this.enc = new Encryptor(encryptionKeys);
    this.emailIndex = new RecipientEmailIndex(encryptionKeys);
  }

  /**
   * Records a pending gift under the certificate's row lock. `senderOf` sees the locked
   * certificate and answers the sender's address or throws the refusal.
   */
  async create(
    scope: Scope,
    gift: NewGift,
    senderOf: (cert: CertificateRecord) => Promise<string>,
  ): Promise<GiftRecord> {
    try {
      return await transaction(this.pool, async (tx) => {
        const { rows } = await tx.query<CertificateRow>(
          'SELECT * FROM certificates WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE',
          [gift.certificateId, scope.enterpriseId, scope.livemode],
        );
        if (!rows[0]) throw notFound('certificate', gift.certificateId);
        const sender = await senderOf(certificateFromRow(rows[0]));
        // The hand-over hold, lapsing with the gift (docs/security.md › Hand-over exclusivity).
        const blocked = await takeHandovers(
          tx,
          'gift',
          [{ certificateId: gift.certificateId, id: gift.id, until: gift.expiresAt }],
          { param: 'certificateId', doing: 'it cannot be gifted' },
        );
        if (blocked.size > 0) {
          throw handoverRefused(gift.certificateId, blocked.get(gift.certificateId) ?? null, {
            param: 'certificateId',
            showId: true,
            doing: 'it cannot be gifted',
          });
        }
        const { rows: inserted } = await tx.query<GiftRow>(
          `INSERT INTO gifts (id, enterprise_id, livemode, certificate_id, creator_id, sender_address,
             recipient_email_enc, recipient_phone_enc, recipient_phone_hash, sender_email_enc, message,
             claim_token_hash, expires_at, kind, approval, recipient_email_hmac)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *`,
          [
            gift.id,
            scope.enterpriseId,
            scope.livemode,
            gift.certificateId,
            gift.creatorId,
            sender,
            this.enc.encrypt(gift.recipientEmail),
            gift.recipientPhone ? this.enc.encrypt(gift.recipientPhone) : null,
            gift.recipientPhone ? phoneHash(gift.recipientPhone) : null,
            gift.senderEmail ? this.enc.encrypt(gift.senderEmail) : null,
            gift.message,
            gift.tokenHash,
            gift.expiresAt,
            gift.kind ?? 'gift',
            gift.approval ?? null,
            this.emailIndex.of(gift.recipientEmail),
          ],
        );
        const created = inserted[0]!;
        if (created.kind === 'resale') {
          await recordResaleEvents(tx, created, ['certificate.resale_started']);
          if (created.approval === 'requested')
            await recordResaleEvents(tx, created, ['certificate.resale_approval_requested']);
        }
        return fromRow(created);
      });
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'gifts_open') throw alreadyGifted();
      throw err;
    }
  }

  /** A gift of the scope (another enterprise's or mode's: not found). */
  async get(scope: Scope, id: string): Promise<GiftRecord> {
    const g = await this.find(id);
    if (!g || g.enterpriseId !== scope.enterpriseId || g.livemode !== scope.livemode)
      throw notFound('gift', id);
    return g;
  }

  async find(id: string): Promise<GiftRecord | null> {
    const { rows } = await this.pool.query<GiftRow>('SELECT * FROM gifts WHERE id = $1', [id]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /**
   * What the latest send of the claim link came to: `sent` clears the error; a failure without
   * one of its own (the workflow giving up) keeps the last.
   */
  async recordNotification(id: string, state: NotificationState, error: string | null): Promise<void> {
    await this.pool.query(
      `UPDATE gifts SET notification = $2, updated_at = now(),
              notification_error = CASE WHEN $2 = 'sent' THEN NULL ELSE coalesce($3, notification_error) END
        WHERE id = $1`,
      [id, state, error],
    );
  }

  async byTokenHash(hash: string): Promise<GiftRecord | null> {
    const { rows } = await this.pool.query<GiftRow>('SELECT * FROM gifts WHERE claim_token_hash = $1', [
      hash,
    ]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async contacts(id: string): Promise<GiftContacts | null> {
    const { rows } = await this.pool.query<GiftRow>('SELECT * FROM gifts WHERE id = $1', [id]);
    const r = rows[0];
    if (!r) return null;
    return {
      email: this.enc.decrypt(r.recipient_email_enc),
      phone: r.recipient_phone_enc ? this.enc.decrypt(r.recipient_phone_enc) : null,
      senderEmail: r.sender_email_enc ? this.enc.decrypt(r.sender_email_enc) : null,
    };
  }

  /**
   * The single-use gate: pending and unexpired → claiming by this user, with the certificate's
   * hand-over hold kept (no lapse) while the sender still holds it. Null when it lost; a
   * certificate held by another hand-over or moved away refuses the claim (409).
   */
  async take(id: string, userId: string, recipientAddress: string): Promise<GiftRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        `UPDATE gifts SET status = 'claiming', claimed_by = $2, recipient_address = $3, updated_at = now()
          WHERE id = $1 AND status = 'pending' AND expires_at > now() RETURNING *`,
        [id, userId, recipientAddress],
      );
      const g = rows[0];
      if (!g) return null;
      const blocked = await takeHandovers(
        tx,
        'gift',
        [{ certificateId: g.certificate_id, id: g.id, until: null }],
        { holder: g.sender_address, param: 'token', doing: 'this gift cannot be claimed' },
      );
      if (blocked.size > 0) {
        const holder = blocked.get(g.certificate_id) ?? null;
        throw handoverRefused(g.certificate_id, holder && { ...holder, id: '' }, {
          param: 'token',
          doing: 'this gift cannot be claimed',
        });
      }
      return fromRow(g);
    });
  }

  /** pending → revoked, its hand-over hold given up; null when the gift was not pending. */
  async revoke(id: string): Promise<GiftRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        `UPDATE gifts SET status = 'revoked', revoked_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'pending' RETURNING *`,
        [id],
      );
      if (rows[0]) await releaseHandover(tx, rows[0].certificate_id, { kind: 'gift', id });
      if (rows[0]?.kind === 'resale') await recordResaleEvents(tx, rows[0], ['certificate.resale_cancelled']);
      return rows[0] ? fromRow(rows[0]) : null;
    });
  }

  /** Removes a still-pending gift (expiry), giving up its hold; null when it was claimed or revoked meanwhile. */
  async expire(id: string): Promise<GiftRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        "DELETE FROM gifts WHERE id = $1 AND status = 'pending' RETURNING *",
        [id],
      );
      if (rows[0]) await releaseHandover(tx, rows[0].certificate_id, { kind: 'gift', id });
      if (rows[0]?.kind === 'resale') await recordResaleEvents(tx, rows[0], ['certificate.resale_cancelled']);
      return rows[0] ? fromRow(rows[0]) : null;
    });
  }

  /**
   * Whether a pending gift can still be claimed as far as its certificate goes: not held by
   * another live hand-over, and still at the sender's address (else its page says so).
   */
  async certificateFree(g: GiftRecord): Promise<boolean> {
    const { rows } = await this.pool.query<{ free: boolean }>(
      `SELECT (handover_kind IS NULL OR (handover_until IS NOT NULL AND handover_until <= now())
                OR (handover_kind = 'gift' AND handover_id = $2))
              AND lower(holder_address) = lower($3) AS free
         FROM certificates WHERE id = $1`,
      [g.certificateId, g.id, g.senderAddress],
    );
    return rows[0]?.free ?? false;
  }

  /**
   * claiming → claimed with the confirmed transfer's references, a `gifted` (a resale:
   * `resold`, and certificate.resale_completed) provenance entry (the transfer itself recorded
   * `transferred`) and certificate.updated, in one transaction.
   */
  async markClaimed(id: string, txHash: string, blockNumber: number | null): Promise<GiftRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        `UPDATE gifts SET status = 'claimed', transaction_hash = $2, block_number = $3, claimed_at = now(),
                updated_at = now()
          WHERE id = $1 AND status = 'claiming' RETURNING *`,
        [id, txHash, blockNumber],
      );
      const g = rows[0];
      if (!g) return null;
      // The confirmed transfer gave up the hold already; this covers a hold left behind.
      await releaseHandover(tx, g.certificate_id, { kind: 'gift', id });
      const kind = g.kind === 'resale' ? 'resold' : 'gifted';
      await tx.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
         VALUES ($1, $7, $2, $3, $4, $5, $6)`,
        [g.certificate_id, g.creator_id, g.sender_address, g.recipient_address, txHash, blockNumber, kind],
      );
      await recordCertificateUpdated(tx, g.certificate_id, kind);
      if (g.kind === 'resale') await recordResaleEvents(tx, g, ['certificate.resale_completed']);
      return fromRow(g);
    });
  }

  /** The next transfer attempt of a claiming gift (its previous transfer failed). */
  async nextAttempt(id: string): Promise<GiftRecord | null> {
    const { rows } = await this.pool.query<GiftRow>(
      `UPDATE gifts SET transfer_attempt = transfer_attempt + 1, updated_at = now()
        WHERE id = $1 AND status = 'claiming' RETURNING *`,
      [id],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /**
   * claiming → pending again (the transfer was refused for good); the token works again and
   * the hold lapses with the gift again.
   */
  async release(id: string): Promise<void> {
    await transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        `UPDATE gifts SET status = 'pending', claimed_by = NULL, recipient_address = NULL, updated_at = now()
          WHERE id = $1 AND status = 'claiming' RETURNING *`,
        [id],
      );
      const g = rows[0];
      // Giving the hold back to the pending gift is no hand-over: allowed even while reported stolen.
      if (g)
        await takeHandovers(tx, 'gift', [{ certificateId: g.certificate_id, id, until: g.expires_at }], {
          evenIfReportedStolen: true,
        });
    });
  }

  async countResend(id: string): Promise<number> {
    const { rows } = await this.pool.query<{ resend_count: number }>(
      'UPDATE gifts SET resend_count = resend_count + 1, updated_at = now() WHERE id = $1 RETURNING resend_count',
      [id],
    );
    return rows[0]?.resend_count ?? 0;
  }

  async markStarted(id: string): Promise<void> {
    await this.pool.query('UPDATE gifts SET workflow_started_at = now() WHERE id = $1', [id]);
  }

  /**
   * A page of the scope's gifts (kind `gift`), newest first, and how many there are; `status`
   * as the API shows it, so `pending` leaves out a pending gift past its expiry (`expired`).
   */
  async list(
    scope: Scope,
    status: GiftStatus | null,
    page: number,
    limit: number,
  ): Promise<{ gifts: GiftRecord[]; total: number }> {
    const { rows } = await this.pool.query<GiftRow & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM gifts
       WHERE enterprise_id = $1 AND livemode = $2 AND kind = 'gift'
         AND ($3::text IS NULL OR (status = $3 AND ($3 <> 'pending' OR expires_at > now())))
       ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
      [scope.enterpriseId, scope.livemode, status, limit, (page - 1) * limit],
    );
    if (rows[0] || page === 1) return { gifts: rows.map(fromRow), total: Number(rows[0]?.total ?? 0) };
    // Past the last page the window counts nothing: count on its own.
    const { rows: c } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM gifts WHERE enterprise_id = $1 AND livemode = $2 AND kind = 'gift'
         AND ($3::text IS NULL OR (status = $3 AND ($3 <> 'pending' OR expires_at > now())))`,
      [scope.enterpriseId, scope.livemode, status],
    );
    return { gifts: [], total: Number(c[0]!.n) };
  }

  /** Gifts whose workflow Restate has not accepted yet (oldest first). */
  async unstarted(limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM gifts WHERE workflow_started_at IS NULL ORDER BY created_at LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /** The transfer of a key (the chain side of a claim), as the transfers table holds it. */
  async transferOf(
    g: GiftRecord,
    key: string,
  ): Promise<{ status: string; txHash: string | null; block: number | null } | null> {
    const { rows } = await this.pool.query<{
      status: string;
      tx_hash: string | null;
      block_number: string | null;
    }>(
      `SELECT status, tx_hash, block_number FROM certificate_transfers
        WHERE enterprise_id = $1 AND livemode = $2 AND transfer_key = $3`,
      [g.enterpriseId, g.livemode, key],
    );
    const r = rows[0];
    return r
      ? {
          status: r.status,
          txHash: r.tx_hash,
          block: r.block_number === null ? null : Number(r.block_number),
        }
      : null;
  }
}
