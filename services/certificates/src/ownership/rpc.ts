// gRPC handlers of OwnershipService: proto <-> service calls, nothing else.
import { missingParam, scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { OwnershipLink, OwnershipServiceServer } from '@hallmark/proto/certificates/v1/resale';
import type { OwnershipLinkRecord } from './domain.js';
import type { OwnershipService } from './service.js';

const linkProto = (l: OwnershipLinkRecord): OwnershipLink => ({
  id: l.id,
  certificate_id: l.certificateId,
  holder_address: l.holderAddress,
  expires_at: l.expiresAt.toISOString(),
  revoked_at: l.revokedAt?.toISOString(),
  created_at: l.createdAt.toISOString(),
});

export function createOwnershipHandlers(service: OwnershipService): AsyncHandlers<OwnershipServiceServer> {
  return {
    async createOwnershipLink(req) {
      if (!req.certificate_id) throw missingParam('certificateId');
      const { link, token } = await service.createLink(
        scopeOf(req.principal),
        req.principal!,
        req.certificate_id,
        req.ttl_hours,
      );
      return { link: linkProto(link), token };
    },
    async revokeOwnershipLink(req) {
      if (!req.link_id) throw missingParam('linkId');
      return linkProto(await service.revokeLink(scopeOf(req.principal), req.principal!, req.link_id));
    },
    async getOwnershipProof(req) {
      const { link, status, now, certificate } = await service.proof(req.token);
      return {
        status,
        as_of: now.toISOString(),
        expires_at: link.expiresAt.toISOString(),
        created_at: link.createdAt.toISOString(),
        certificate_id: certificate?.id,
        certificate_name: certificate?.name,
        image_url: certificate?.imageUrl ?? undefined,
        token_id: certificate?.tokenId == null ? undefined : Number(certificate.tokenId),
        holder_address: status === 'owned' ? link.holderAddress : undefined,
      };
    },
    async prepareExport(req) {
      if (!req.certificate_id) throw missingParam('certificateId');
      const typed = await service.prepareExport(
        scopeOf(req.principal),
        req.principal!,
        req.certificate_id,
        req.to_address,
      );
      return { typed_data_json: JSON.stringify(typed) };
    },
    async exportCertificate(req) {
      if (!req.certificate_id) throw missingParam('certificateId');
      if (!req.signature) throw missingParam('signature');
      const { transfer, replayed, to } = await service.export(scopeOf(req.principal), req.principal!, {
        certificateId: req.certificate_id,
        toAddress: req.to_address,
        deadline: BigInt(req.deadline),
        signature: req.signature,
      });
      return {
        status: transfer.status,
        transaction_hash: transfer.tx_hash ?? undefined,
        to_address: to,
        replayed,
      };
    },
    async prepareImport(req) {
      if (!req.certificate_id) throw missingParam('certificateId');
      const typed = await service.prepareImport(scopeOf(req.principal), req.principal!, req.certificate_id);
      return { typed_data_json: JSON.stringify(typed) };
    },
    async importCertificate(req) {
      if (!req.certificate_id) throw missingParam('certificateId');
      if (!req.signature) throw missingParam('signature');
      const { transfer, replayed, to } = await service.import(scopeOf(req.principal), req.principal!, {
        certificateId: req.certificate_id,
        deadline: BigInt(req.deadline),
        signature: req.signature,
      });
      return {
        status: transfer.status,
        transaction_hash: transfer.tx_hash ?? undefined,
        to_address: to,
        replayed,
      };
    },
  };
}
