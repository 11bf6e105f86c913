// gRPC handlers of CertificateVerificationService (public: no principal).
import { invalidParam, notFound, type AsyncHandlers } from '@hallmark/kit';
import type { CertificateVerificationServiceServer } from '@hallmark/proto/certificates/v1/verification';
import { toProto } from '../rpc.js';
import type { CertificatesStore } from '../store.js';
import type { Verifier } from './verifier.js';

export function createVerificationHandlers(deps: {
  store: CertificatesStore;
  verifier: Verifier;
}): AsyncHandlers<CertificateVerificationServiceServer> {
  return {
    async verifyCertificate(req) {
      const v = await deps.verifier.verify(req.certificate_id, { recordEvent: req.record_event === true });
      return {
        certificate: toProto(v.read),
        checks: v.checks,
        verified: v.verified,
        burned: v.burned,
        verified_at: v.verifiedAt.toISOString(),
        chain_owner: v.chainOwner ?? undefined,
      };
    },

    async getPublicCertificateByToken(req) {
      const tokenId = req.token_id;
      if (!Number.isSafeInteger(tokenId) || tokenId < 1) {
        throw invalidParam('token_id', 'token_id must be a positive integer.');
      }
      const id = await deps.verifier.certificateIdOfToken(BigInt(tokenId));
      if (!id) throw notFound('token', String(tokenId));
      const read = await deps.store.getPublic(id);
      // A burned token can no longer be queried (spec › Chain events).
      if (read.certificate.status === 'burned') throw notFound('token', String(tokenId));
      return toProto(read);
    },
  };
}
