// gRPC handlers of CertificateVoucherService: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type {
  CertificateVoucher,
  CertificateVoucherServiceServer,
} from '@hallmark/proto/certificates/v1/vouchers';
import type { PublicReadDeps } from '../rpc.js';
import { voucherStatus, type VoucherRecord } from './domain.js';
import { CertificateVoucherService, type CertificateVoucherServiceDeps } from './service.js';

function voucherToProto(v: VoucherRecord, now = new Date()): CertificateVoucher {
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

/** The handlers over a CertificateVoucherService built from `deps`. */
export function createCertificateVoucherHandlers(
  deps: CertificateVoucherServiceDeps & PublicReadDeps,
): AsyncHandlers<CertificateVoucherServiceServer> {
  const service = new CertificateVoucherService(deps);
  return {
    async createVouchers(req) {
      const { vouchers, replayed } = await service.create(scopeOf(req.principal), {
        idempotencyKey: req.idempotency_key,
        items: req.items,
      });
      const now = new Date();
      return { vouchers: vouchers.map((v) => voucherToProto(v, now)), replayed };
    },

    async getPublicVoucher(req) {
      const { voucher, certificate } = await service.getPublic(req.voucher_id);
      return {
        voucher: voucherToProto(voucher),
        certificate_json: JSON.stringify(certificate),
        enterprise_id: voucher.enterpriseId,
        issuer: await deps.issuerOf?.(voucher.enterpriseId),
      };
    },

    async voidVouchers(req) {
      const r = await service.void(scopeOf(req.principal), req.voucher_ids, req.reason);
      return { voided_ids: r.voided, claimed_ids: r.claimed };
    },

    async claimVoucher(req) {
      const { voucher, transfer, replayed } = await service.claim(
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
