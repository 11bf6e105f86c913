// The certificate voucher's row as both stores read it (joined with its certificate's chain
// references and status), its mapping to the domain record, and the lookup by id or reference.
import { isId, notFound, type Queryable } from '@hallmark/kit';
import { isHandoverKind } from '../domain/handover.js';
import { parseReferenceNumber, type VoucherRecord } from './domain.js';

export interface VoucherRow {
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
  /** The certificate's live hand-over hold (null: none, or lapsed); absent from some reads. */
  live_handover_kind?: string | null;
  live_handover_id?: string | null;
  /** Whether a custodial wallet of the issuer still holds the certificate; absent: assumed. */
  issuer_holds?: boolean;
}

export const SELECT = `SELECT v.*, c.token_id, c.transaction_hash, c.block_number, c.status AS certificate_status,
    c.holder_address,
    CASE WHEN c.handover_until IS NULL OR c.handover_until > now() THEN c.handover_kind END AS live_handover_kind,
    c.handover_id AS live_handover_id,
    EXISTS (SELECT 1 FROM wallets w
             WHERE lower(w.address) = lower(c.holder_address) AND w.enterprise_id = v.enterprise_id) AS issuer_holds
  FROM certificate_vouchers v JOIN certificates c ON c.id = v.certificate_id`;

/**
 * Why an otherwise claimable voucher cannot be claimed: its certificate is in another
 * pending hand-over (a gift or transfer, or in old data another voucher), or no wallet of the
 * issuer holds it any more (it moved).
 */
function unavailableOf(r: VoucherRow): VoucherRecord['unavailable'] {
  const kind = r.live_handover_kind;
  if (kind && !(kind === 'voucher' && r.live_handover_id === r.id)) return 'handover';
  return r.issuer_holds === false ? 'moved' : null;
}

export const fromRow = (r: VoucherRow): VoucherRecord => ({
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
  unavailable: unavailableOf(r),
  otherHandover: isHandoverKind(r.live_handover_kind) ? r.live_handover_kind : null,
});

/** The voucher row named by its id or reference number (as typed), locked when asked; not found otherwise. */
export async function findVoucherRow(
  db: Queryable,
  idOrReference: string,
  lock: boolean,
): Promise<VoucherRow> {
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
