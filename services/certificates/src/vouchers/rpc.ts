// gRPC handlers of CertificateVoucherService: proto <-> domain, nothing else.
import { HallmarkError, missingParam, type AsyncHandlers } from '@hallmark/kit';
import type {
  CertificateVoucher,
  CertificateVoucherServiceServer,
} from '@hallmark/proto/certificates/v1/vouchers';
import { metadataView } from '../domain/certificate.js';
import { scopeOf } from '../rpc.js';
import type { CertificatesStore } from '../store.js';
import type { VoucherClaims } from './claim.js';
import { MAX_VOUCHER_ITEMS, parseCreateVouchers, voucherStatus, type VoucherRecord } from './domain.js';
import type { VoucherStore } from './store.js';

export interface VoucherHandlerDeps {
  vouchers: VoucherStore;
  certificates: CertificatesStore;
  /** Claims (custodial wallets and transfers); unset: ClaimVoucher answers unavailable. */
  claims?: VoucherClaims;
}

export function voucherToProto(v: VoucherRecord, now = new Date()): CertificateVoucher {
  return {
    id: v.id,
    url: v.url,
    reference_number: v.referenceNumber,
    metadata_json: JSON.stringify(v.metadata),
    certificate_id: v.certificateId,
    status: voucherStatus(v, now),
    void_reason: v.voidReason ?? undefined,
    expires_at: v.expiresAt.toISOString(),
    created_at: v.createdAt.toISOString(),
    claimed_at: v.claimedAt?.toISOString(),
    line_item_gid: v.lineItemGid ?? undefined,
    token_id: v.tokenId === null ? undefined : Number(v.tokenId),
    transaction_hash: v.transactionHash ?? undefined,
    block_number: v.blockNumber ?? undefined,
    livemode: v.livemode,
  };
}

export function createVoucherHandlers(
  deps: VoucherHandlerDeps,
): AsyncHandlers<CertificateVoucherServiceServer> {
  return {
    async createVouchers(req) {
      const scope = scopeOf(req.principal);
      const input = parseCreateVouchers({ idempotencyKey: req.idempotency_key, items: req.items });
      const { vouchers, replayed } = await deps.vouchers.create(scope, input);
      const now = new Date();
      return { vouchers: vouchers.map((v) => voucherToProto(v, now)), replayed };
    },

    async getPublicVoucher(req) {
      if (!req.voucher_id) throw missingParam('voucher_id');
      const voucher = await deps.vouchers.find(req.voucher_id);
      const { certificate: c } = await deps.certificates.getPublic(voucher.certificateId);
      // The certificate as GetPublicCertificate shows it, without its provenance.
      const certificate = {
        id: c.id,
        name: c.name,
        imageUrl: c.imageUrl,
        metadata: metadataView(c),
        status: c.status,
        tokenId: c.tokenId === null ? null : Number(c.tokenId),
        transactionHash: c.transactionHash,
        blockNumber: c.blockNumber,
      };
      return {
        voucher: voucherToProto(voucher),
        certificate_json: JSON.stringify(certificate),
        enterprise_id: voucher.enterpriseId,
      };
    },

    async voidVouchers(req) {
      const scope = scopeOf(req.principal);
      if (req.voucher_ids.length === 0) return { voided_ids: [], claimed_ids: [] };
      if (req.voucher_ids.length > MAX_VOUCHER_ITEMS * 50)
        throw new HallmarkError('parameter_invalid', { param: 'voucher_ids', message: 'Too many vouchers.' });
      const reason = (req.reason || 'The order was cancelled.').slice(0, 200);
      const r = await deps.vouchers.void(scope, req.voucher_ids, reason);
      return { voided_ids: r.voided, claimed_ids: r.claimed };
    },

    async claimVoucher(req) {
      if (!req.voucher_id) throw missingParam('voucher_id');
      if (!deps.claims) {
        throw new HallmarkError('service_unavailable', { message: 'Claiming vouchers is not available.' });
      }
      const { voucher, transfer, replayed } = await deps.claims.claim(
        req.principal,
        req.voucher_id,
        req.recipient_email?.trim() || null,
      );
      return {
        voucher: voucherToProto(voucher),
        transfer_status: transfer.status,
        to_address: transfer.to_address,
        transaction_hash: transfer.tx_hash ?? undefined,
        block_number: transfer.block_number === null ? undefined : Number(transfer.block_number),
        replayed,
      };
    },
  };
}
