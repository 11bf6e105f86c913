// gRPC handlers of ResaleService: proto <-> service calls, nothing else.
import { missingParam, scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { Resale, ResalePolicy, ResaleServiceServer } from '@hallmark/proto/certificates/v1/resale';
import type { CertificatesStore } from '../store.js';
import type { GiftRecord } from './domain/gift.js';
import { resaleView } from './domain/resale.js';
import type { ResalePolicy as Policy } from './resale-store.js';
import type { ResaleService } from './resale-service.js';

async function toProto(g: GiftRecord, certificates: CertificatesStore): Promise<Resale> {
  const { certificate } = await certificates.getPublic(g.certificateId);
  const v = resaleView(g, certificate.tokenId === null ? null : Number(certificate.tokenId));
  return {
    id: v.id,
    certificate_id: v.certificate_id,
    token_id: v.token_id ?? undefined,
    status: v.status,
    approval: v.approval ?? undefined,
    approval_reason: v.approval_reason ?? undefined,
    seller_address: v.seller_address,
    buyer_address: v.buyer_address ?? undefined,
    transaction_hash: v.transaction_hash ?? undefined,
    expires_at: v.expires_at,
    created_at: v.created_at,
    livemode: v.livemode,
    notification: g.notification,
  };
}

const policyProto = (p: Policy): ResalePolicy => ({
  approval_required: p.approvalRequired,
  updated_at: p.updatedAt?.toISOString(),
});

export function createResaleHandlers(
  service: ResaleService,
  certificates: CertificatesStore,
): AsyncHandlers<ResaleServiceServer> {
  return {
    async createResale(req) {
      const g = await service.create(scopeOf(req.principal), req.principal!, {
        certificateId: req.certificate_id,
        buyerEmail: req.buyer_email,
        message: req.message,
        sellerEmail: req.seller_email,
      });
      return toProto(g, certificates);
    },
    async getResale(req) {
      if (!req.resale_id) throw missingParam('resaleId');
      return toProto(await service.get(scopeOf(req.principal), req.resale_id), certificates);
    },
    async cancelResale(req) {
      if (!req.resale_id) throw missingParam('resaleId');
      return toProto(await service.cancel(scopeOf(req.principal), req.resale_id), certificates);
    },
    async decideResale(req) {
      if (!req.resale_id) throw missingParam('resaleId');
      const g = await service.decide(
        scopeOf(req.principal),
        req.principal!,
        req.resale_id,
        req.approve,
        req.reason,
      );
      return toProto(g, certificates);
    },
    async getResalePolicy(req) {
      return policyProto(await service.policy(scopeOf(req.principal)));
    },
    async setResalePolicy(req) {
      return policyProto(
        await service.setPolicy(scopeOf(req.principal), req.principal!, req.approval_required),
      );
    },
  };
}
