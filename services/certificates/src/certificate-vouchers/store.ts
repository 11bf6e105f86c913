// All SQL of certificate vouchers. CreateVouchers writes the request (its idempotency key), the
// vouchers and their events in one transaction; voucher.minted is recorded exactly once per
// voucher (minted_event_at), either at creation when the certificate is already minted or in
// the relayer's confirming transaction (recordVouchersMinted, the relayer's afterMinted). The
// two serialise on the certificate batch row: completeBatch locks it FOR UPDATE before marking
// its certificates minted, CreateVouchers locks it FOR SHARE before reading their status, so
// whichever commits second sees the other's write.
import {
  Encryptor,
  HallmarkError,
  newId,
  notFound,
  recordEvents,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import { EVENT_SOURCE, type Scope } from '../domain/certificate.js';
import { RecipientEmailIndex } from '../domain/email-index.js';
import { handoverRefused } from '../domain/handover.js';
import { releaseHandovers, takeHandovers } from '../handover-store.js';
import { findByIdempotencyKey } from '../idempotency-store.js';
import { CertificateVoucherClaimStore } from './claim-store.js';
import { findVoucherRow, fromRow, SELECT, type VoucherRow } from './rows-store.js';
import {
  expiresAtOf,
  newReferenceNumber,
  voucherEvents,
  voucherUrl,
  type CreateVouchersInput,
  type VoucherRecord,
} from './domain.js';

/**
 * voucher.minted for the vouchers of certificates just marked minted, inside the relayer's
 * confirming transaction (after the certificates' UPDATE, so the view has their token ids).
 * At most once per voucher: only rows without minted_event_at are taken.
 */
export async function recordVouchersMinted(tx: Queryable, certificateIds: string[]): Promise<number> {
  if (certificateIds.length === 0) return 0;
  const { rows } = await tx.query<VoucherRow>(
    `WITH v AS (
       UPDATE certificate_vouchers SET minted_event_at = now(), updated_at = now()
       WHERE certificate_id = ANY($1::text[]) AND minted_event_at IS NULL RETURNING *)
     SELECT v.*, c.token_id, c.transaction_hash, c.block_number, c.status AS certificate_status,
       c.holder_address
     FROM v JOIN certificates c ON c.id = v.certificate_id ORDER BY v.request_id, v.position`,
    [certificateIds],
  );
  if (rows.length === 0) return 0;
  await recordEvents(tx, EVENT_SOURCE, voucherEvents([], rows.map(fromRow)));
  return rows.length;
}

export interface CreatedVouchers {
  vouchers: VoucherRecord[];
  replayed: boolean;
}

export interface CertificateVoucherStoreOptions {
  /** HALLMARK_PUBLIC_URL: view URLs are `<it>/vouchers/<id>`. */
  publicUrl: string;
  /** HALLMARK_ENCRYPTION_KEYS; unset: vouchers with recipient data answer unavailable. */
  encryptionKeys?: string;
}

const REFERENCE_ATTEMPTS = 4;

export class CertificateVoucherStore {
  private readonly encryptor: Encryptor | null;
  /** The recipient e-mail's blind index (search by e-mail), with the same keys. */
  private readonly emailIndex: RecipientEmailIndex | null;
  /** The claim's SQL (./claim-store.ts), on the same pool and keys. */
  readonly claims: CertificateVoucherClaimStore;

  constructor(
    readonly pool: Pool,
    private readonly opts: CertificateVoucherStoreOptions,
  ) {
    this.encryptor = opts.encryptionKeys ? new Encryptor(opts.encryptionKeys) : null;
    this.emailIndex = opts.encryptionKeys ? new RecipientEmailIndex(opts.encryptionKeys) : null;
    this.claims = new CertificateVoucherClaimStore(pool, this.encryptor);
  }

  /**
   * Creates the request's vouchers, or answers those an earlier call with the same key created
   * (replayed). A reference number that clashes with an existing one (1 in 2^40 per pair) makes
   * the whole transaction run again with fresh numbers.
   */
  async create(scope: Scope, input: CreateVouchersInput): Promise<CreatedVouchers> {
    const existing = await this.findRequest(scope, input);
    if (existing) return existing;
    const hasRecipientData = input.items.some((i) => i.recipientEmail || i.recipientName);
    if (hasRecipientData && !this.encryptor) {
      throw new HallmarkError('service_unavailable', {
        message: 'Recipient data cannot be stored: no encryption key is configured.',
      });
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const vouchers = await transaction(this.pool, (tx) => this.insert(tx, scope, input));
        return { vouchers, replayed: false };
      } catch (err) {
        const constraint = (err as { constraint?: string }).constraint;
        if (constraint === 'certificate_voucher_requests_key') {
          const raced = await this.findRequest(scope, input);
          if (raced) return raced;
        }
        if (constraint === 'certificate_vouchers_reference' && attempt < REFERENCE_ATTEMPTS) continue;
        if (constraint === 'certificate_vouchers_certificate') {
          throw new HallmarkError('resource_already_exists', {
            param: 'items',
            message: 'A certificate of this request already has a voucher.',
          });
        }
        throw err;
      }
    }
  }

  private async insert(tx: Queryable, scope: Scope, input: CreateVouchersInput): Promise<VoucherRecord[]> {
    const { rows: request } = await tx.query<{ id: string }>(
      `INSERT INTO certificate_voucher_requests (enterprise_id, livemode, idempotency_key, request_hash, actor_id)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [scope.enterpriseId, scope.livemode, input.idempotencyKey, input.requestHash, scope.actorId || null],
    );
    const certificateIds = input.items.map((i) => i.certificateId);
    // Serialises with the relayer's completeBatch (see the top of this file).
    await tx.query(
      `SELECT id FROM certificate_batches
       WHERE id IN (SELECT batch_id FROM certificates WHERE id = ANY($1::text[])) ORDER BY id FOR SHARE`,
      [certificateIds],
    );
    // By primary key alone, the scope checked on the rows: with the scope in the WHERE clause
    // the planner ANDed the enterprise's index into the scan, which reads every certificate of
    // the enterprise (and every dead version of them): each batch of a bulk job read more.
    const { rows: certs } = await tx.query<{ id: string; status: string; own: boolean }>(
      `SELECT id, status, (enterprise_id = $2 AND livemode = $3) AS own
         FROM certificates WHERE id = ANY($1::text[])`,
      [certificateIds, scope.enterpriseId, scope.livemode],
    );
    const status = new Map(certs.filter((c) => c.own).map((c) => [c.id, c.status]));
    input.items.forEach((item, i) => {
      const s = status.get(item.certificateId);
      if (!s) throw notFound('certificate', item.certificateId);
      if (s === 'burned') {
        throw new HallmarkError('validation_failed', {
          param: `items[${i}].certificate_id`,
          message: `Certificate ${item.certificateId} was burned; it cannot get a voucher.`,
        });
      }
    });
    const { rows: taken } = await tx.query<{ certificate_id: string }>(
      'SELECT certificate_id FROM certificate_vouchers WHERE certificate_id = ANY($1::text[])',
      [certificateIds],
    );
    if (taken[0]) {
      throw new HallmarkError('resource_already_exists', {
        param: `items[${certificateIds.indexOf(taken[0].certificate_id)}].certificate_id`,
        message: `Certificate ${taken[0].certificate_id} already has a voucher.`,
      });
    }
    const now = new Date();
    const references = new Set<string>();
    const rows = input.items.map((item, position) => {
      const id = newId('certificateVoucher');
      let reference = newReferenceNumber();
      while (references.has(reference)) reference = newReferenceNumber();
      references.add(reference);
      return {
        id,
        position,
        reference_number: reference,
        url: voucherUrl(this.opts.publicUrl, id),
        certificate_id: item.certificateId,
        metadata: item.metadata,
        recipient_email_enc: item.recipientEmail ? this.encryptor!.encrypt(item.recipientEmail) : null,
        recipient_email_hmac: item.recipientEmail ? this.emailIndex!.of(item.recipientEmail) : null,
        recipient_name_enc: item.recipientName ? this.encryptor!.encrypt(item.recipientName) : null,
        line_item_gid: item.lineItemGid,
        expires_at: expiresAtOf(now, item.expiryDays).toISOString(),
        minted: status.get(item.certificateId) === 'minted',
      };
    });
    // Each certificate's hand-over hold, until its voucher expires (docs/security.md ›
    // Hand-over exclusivity): refused while a gift or transfer of it is pending.
    const blocked = await takeHandovers(
      tx,
      'voucher',
      rows.map((r) => ({ certificateId: r.certificate_id, id: r.id, until: new Date(r.expires_at) })),
      { param: 'certificate_id', doing: 'it cannot get a voucher' },
    );
    const [first] = blocked;
    if (first) {
      throw handoverRefused(first[0], first[1], {
        param: `items[${certificateIds.indexOf(first[0])}].certificate_id`,
        showId: true,
        doing: 'it cannot get a voucher',
      });
    }
    await tx.query(
      `INSERT INTO certificate_vouchers (id, enterprise_id, livemode, request_id, position, reference_number, url,
         certificate_id, metadata, recipient_email_enc, recipient_email_hmac, recipient_name_enc, line_item_gid,
         expires_at, minted_event_at, created_at, updated_at)
       SELECT r.id, $1, $2, $3, r.position, r.reference_number, r.url, r.certificate_id, r.metadata,
         r.recipient_email_enc, r.recipient_email_hmac, r.recipient_name_enc, r.line_item_gid, r.expires_at,
         CASE WHEN r.minted THEN $4::timestamptz END, $4, $4
       FROM jsonb_to_recordset($5::jsonb) AS r(id text, position int, reference_number text, url text,
         certificate_id text, metadata jsonb, recipient_email_enc text, recipient_email_hmac text,
         recipient_name_enc text,
         line_item_gid text, expires_at timestamptz, minted boolean)`,
      [scope.enterpriseId, scope.livemode, request[0]!.id, now.toISOString(), JSON.stringify(rows)],
    );
    const vouchers = await this.ofRequest(request[0]!.id, tx);
    await recordEvents(
      tx,
      EVENT_SOURCE,
      voucherEvents(
        vouchers,
        vouchers.filter((v) => v.certificateStatus === 'minted'),
      ),
    );
    return vouchers;
  }

  private async findRequest(scope: Scope, input: CreateVouchersInput): Promise<CreatedVouchers | null> {
    const row = await findByIdempotencyKey<{ id: string; request_hash: string }>(
      this.pool,
      'certificate_voucher_requests',
      scope,
      input.idempotencyKey,
      input.requestHash,
    );
    return row ? { vouchers: await this.ofRequest(row.id), replayed: true } : null;
  }

  private async ofRequest(requestId: string, db: Queryable = this.pool): Promise<VoucherRecord[]> {
    const { rows } = await db.query<VoucherRow>(`${SELECT} WHERE v.request_id = $1 ORDER BY v.position`, [
      requestId,
    ]);
    return rows.map(fromRow);
  }

  /** The voucher named by its id or its reference number (as typed); not found otherwise. */
  async find(idOrReference: string): Promise<VoucherRecord> {
    const row = await findVoucherRow(this.pool, idOrReference, false);
    return fromRow(row);
  }

  /**
   * Voids the enterprise's unclaimed vouchers among `ids` (a cancelled order). A claim holds
   * the row lock while it decides, so a void either waits and then finds the voucher claimed
   * (left alone) or lands first and the claim is refused. Answers the ids now voided (also
   * those voided before) and the ids left alone because they were claimed.
   */
  async void(
    scope: { enterpriseId: string; livemode: boolean },
    ids: string[],
    reason: string,
  ): Promise<{ voided: string[]; claimed: string[] }> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string; voided: boolean }>(
        `WITH hit AS (
         UPDATE certificate_vouchers SET voided_at = now(), void_reason = $4, updated_at = now()
         WHERE id = ANY($1::text[]) AND enterprise_id = $2 AND livemode = $3
           AND claimed_at IS NULL AND voided_at IS NULL
         RETURNING id)
       SELECT v.id, (h.id IS NOT NULL OR v.voided_at IS NOT NULL) AS voided
       FROM certificate_vouchers v LEFT JOIN hit h ON h.id = v.id
       WHERE v.id = ANY($1::text[]) AND v.enterprise_id = $2 AND v.livemode = $3`,
        [ids, scope.enterpriseId, scope.livemode, reason],
      );
      const voided = rows.filter((r) => r.voided).map((r) => r.id);
      // A voided voucher's certificate stays with the issuer, free for another hand-over.
      await releaseHandovers(tx, 'voucher', voided);
      return { voided, claimed: rows.filter((r) => !r.voided).map((r) => r.id) };
    });
  }
}
