// All SQL of certificate vouchers. CreateVouchers writes the request (its idempotency key), the
// vouchers and their events in one transaction; voucher.minted is recorded exactly once per
// voucher (minted_event_at), either at creation when the certificate is already minted or in
// the relayer's confirming transaction (recordVouchersMinted, called by completeBatch). The
// two serialise on the certificate batch row: completeBatch locks it FOR UPDATE before marking
// its certificates minted, CreateVouchers locks it FOR SHARE before reading their status, so
// whichever commits second sees the other's write.
import {
  Encryptor,
  HallmarkError,
  isId,
  newId,
  notFound,
  newEvent,
  recordEvents,
  transaction,
  type EventInput,
  type EventType,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import { EVENT_SOURCE, type Scope } from '../domain/certificate.js';
import {
  claimRefusal,
  expiresAtOf,
  newReferenceNumber,
  parseReferenceNumber,
  voucherEventObject,
  voucherUrl,
  type CreateVouchersInput,
  type VoucherRecord,
} from './domain.js';

interface VoucherRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  reference_number: string;
  url: string;
  certificate_id: string;
  metadata: Record<string, unknown>;
  recipient_email_enc: string | null;
  line_item_gid: string | null;
  expires_at: Date;
  claimed_by: string | null;
  claimed_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
  claim_to_address: string | null;
  claim_transfer_key: string | null;
  claim_attempts: number;
  claim_seq: number;
  created_at: Date;
  token_id: string | null;
  transaction_hash: string | null;
  block_number: string | null;
  certificate_status: VoucherRecord['certificateStatus'];
  holder_address: string;
}

const SELECT = `SELECT v.*, c.token_id, c.transaction_hash, c.block_number, c.status AS certificate_status,
    c.holder_address
  FROM certificate_vouchers v JOIN certificates c ON c.id = v.certificate_id`;

const fromRow = (r: VoucherRow): VoucherRecord => ({
  id: r.id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  url: r.url,
  referenceNumber: r.reference_number,
  certificateId: r.certificate_id,
  metadata: r.metadata,
  lineItemGid: r.line_item_gid,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  claimedBy: r.claimed_by,
  claimedAt: r.claimed_at,
  voidedAt: r.voided_at,
  voidReason: r.void_reason,
  claimToAddress: r.claim_to_address,
  claimTransferKey: r.claim_transfer_key,
  tokenId: r.token_id === null ? null : BigInt(r.token_id),
  transactionHash: r.transaction_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  certificateStatus: r.certificate_status,
});

type VoucherEvent = EventInput<EventType>;

/**
 * The transfer key of a voucher's n-th claim transfer: `claim:<id>` for the first (as before
 * retries existed), `claim:<id>:<n>` after; never reused, even by a claim after an undo.
 */
const claimKey = (voucherId: string, n: number) =>
  n <= 1 ? `claim:${voucherId}` : `claim:${voucherId}:${n}`;

/** Certificate-voucher events; on the wire (enterprise webhooks) voucher.created / voucher.minted. */
const eventOf = (
  type: 'certificate_voucher.created' | 'certificate_voucher.minted',
  v: VoucherRecord,
): VoucherEvent => newEvent(type, { object: voucherEventObject(v) }, v);

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
  await recordEvents(
    tx,
    EVENT_SOURCE,
    rows.map((r) => eventOf('certificate_voucher.minted', fromRow(r))),
  );
  return rows.length;
}

export interface CreatedVouchers {
  vouchers: VoucherRecord[];
  replayed: boolean;
}

export interface ClaimantInput {
  userId: string;
  /** The user's own enterprise (from their session), which may differ from the issuer. */
  enterpriseId: string;
  email: string | null;
  /** The recipient's custodial wallet. */
  toAddress: string;
}

export interface VoucherStoreOptions {
  /** HALLMARK_PUBLIC_URL: view URLs are `<it>/vouchers/<id>`. */
  publicUrl: string;
  /** HALLMARK_ENCRYPTION_KEYS; unset: vouchers with recipient data answer unavailable. */
  encryptionKeys?: string;
}

const REFERENCE_ATTEMPTS = 4;

export class VoucherStore {
  private readonly encryptor: Encryptor | null;

  constructor(
    readonly pool: Pool,
    private readonly opts: VoucherStoreOptions,
  ) {
    this.encryptor = opts.encryptionKeys ? new Encryptor(opts.encryptionKeys) : null;
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
    const { rows: certs } = await tx.query<{ id: string; status: string }>(
      `SELECT id, status FROM certificates WHERE id = ANY($1::text[]) AND enterprise_id = $2 AND livemode = $3`,
      [certificateIds, scope.enterpriseId, scope.livemode],
    );
    const status = new Map(certs.map((c) => [c.id, c.status]));
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
        recipient_name_enc: item.recipientName ? this.encryptor!.encrypt(item.recipientName) : null,
        line_item_gid: item.lineItemGid,
        expires_at: expiresAtOf(now, item.expiryDays).toISOString(),
        minted: status.get(item.certificateId) === 'minted',
      };
    });
    await tx.query(
      `INSERT INTO certificate_vouchers (id, enterprise_id, livemode, request_id, position, reference_number, url,
         certificate_id, metadata, recipient_email_enc, recipient_name_enc, line_item_gid, expires_at,
         minted_event_at, created_at, updated_at)
       SELECT r.id, $1, $2, $3, r.position, r.reference_number, r.url, r.certificate_id, r.metadata,
         r.recipient_email_enc, r.recipient_name_enc, r.line_item_gid, r.expires_at,
         CASE WHEN r.minted THEN $4::timestamptz END, $4, $4
       FROM jsonb_to_recordset($5::jsonb) AS r(id text, position int, reference_number text, url text,
         certificate_id text, metadata jsonb, recipient_email_enc text, recipient_name_enc text,
         line_item_gid text, expires_at timestamptz, minted boolean)`,
      [scope.enterpriseId, scope.livemode, request[0]!.id, now.toISOString(), JSON.stringify(rows)],
    );
    const vouchers = await this.ofRequest(request[0]!.id, tx);
    await recordEvents(tx, EVENT_SOURCE, [
      ...vouchers.map((v) => eventOf('certificate_voucher.created', v)),
      ...vouchers
        .filter((v) => v.certificateStatus === 'minted')
        .map((v) => eventOf('certificate_voucher.minted', v)),
    ]);
    return vouchers;
  }

  private async findRequest(scope: Scope, input: CreateVouchersInput): Promise<CreatedVouchers | null> {
    const { rows } = await this.pool.query<{ id: string; request_hash: string }>(
      `SELECT id, request_hash FROM certificate_voucher_requests
       WHERE enterprise_id = $1 AND livemode = $2 AND idempotency_key = $3`,
      [scope.enterpriseId, scope.livemode, input.idempotencyKey],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.request_hash !== input.requestHash) {
      throw new HallmarkError('resource_already_exists', {
        param: 'idempotency_key',
        message: 'This idempotency key was used with a different request.',
      });
    }
    return { vouchers: await this.ofRequest(row.id), replayed: true };
  }

  private async ofRequest(requestId: string, db: Queryable = this.pool): Promise<VoucherRecord[]> {
    const { rows } = await db.query<VoucherRow>(`${SELECT} WHERE v.request_id = $1 ORDER BY v.position`, [
      requestId,
    ]);
    return rows.map(fromRow);
  }

  /** The voucher named by its id or its reference number (as typed); not found otherwise. */
  async find(idOrReference: string): Promise<VoucherRecord> {
    const row = await this.findRow(this.pool, idOrReference, false);
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
    const { rows } = await this.pool.query<{ id: string; voided: boolean }>(
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
    return {
      voided: rows.filter((r) => r.voided).map((r) => r.id),
      claimed: rows.filter((r) => !r.voided).map((r) => r.id),
    };
  }

  private async findRow(db: Queryable, idOrReference: string, lock: boolean): Promise<VoucherRow> {
    const forUpdate = lock ? ' FOR UPDATE OF v' : '';
    let rows: VoucherRow[] = [];
    if (isId('certificateVoucher', idOrReference)) {
      ({ rows } = await db.query<VoucherRow>(`${SELECT} WHERE v.id = $1${forUpdate}`, [idOrReference]));
    } else {
      const reference = parseReferenceNumber(idOrReference);
      if (reference) {
        ({ rows } = await db.query<VoucherRow>(`${SELECT} WHERE v.reference_number = $1${forUpdate}`, [
          reference,
        ]));
      }
    }
    if (!rows[0]) throw notFound('voucher', idOrReference);
    return rows[0];
  }

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
      const row = await this.findRow(tx, voucherId, true);
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
      `SELECT v.*, c.token_id, c.transaction_hash, c.block_number, c.status AS certificate_status,
           c.holder_address, t.status AS transfer_status
         FROM certificate_vouchers v JOIN certificates c ON c.id = v.certificate_id
         LEFT JOIN certificate_transfers t ON t.enterprise_id = v.enterprise_id
           AND t.livemode = v.livemode AND t.transfer_key = v.claim_transfer_key
        WHERE v.claimed_at IS NOT NULL
          AND (t.status = 'failed' OR (t.id IS NULL AND v.claimed_at < now() - interval '10 seconds'))
        ORDER BY v.claimed_at LIMIT $1`,
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
      const row = await this.findRow(tx, voucherId, true);
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
      const row = await this.findRow(tx, voucherId, true);
      if (row.claim_transfer_key !== failedKey || !row.claimed_at) return null;
      return this.undoClaim(tx, row);
    });
  }

  private async undoClaim(tx: Queryable, row: VoucherRow): Promise<VoucherRecord> {
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
