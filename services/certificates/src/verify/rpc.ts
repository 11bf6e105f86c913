// gRPC handlers of CertificateVerificationService (public: no principal): proto <-> service
// calls, nothing else.
import type { AsyncHandlers } from '@hallmark/kit';
import type {
  CertificateVerificationServiceServer,
  VerifyCertificateResponse,
} from '@hallmark/proto/certificates/v1/verification';
import { toProto, type PublicReadDeps } from '../rpc.js';
import type { DigitalLinkService } from '../digital-link/service.js';
import type { CertificatesStore } from '../store.js';
import type { Verifier } from './service.js';

export type VerificationDeps = { store: CertificatesStore; verifier: Verifier } & PublicReadDeps;

/** A certificate's verification as VerifyCertificate answers it (also a genuine tag tap's page). */
export async function verificationOf(
  deps: VerificationDeps,
  certificateId: string,
  recordEvent: boolean,
): Promise<VerifyCertificateResponse> {
  const v = await deps.verifier.verify(certificateId, { recordEvent });
  return {
    certificate: {
      ...toProto(v.read),
      issuer: await deps.issuerOf?.(v.read.certificate.enterpriseId),
    },
    checks: v.checks,
    verified: v.verified,
    burned: v.burned,
    verified_at: v.verifiedAt.toISOString(),
    chain_owner: v.chainOwner ?? undefined,
    image: v.image ?? undefined,
    merkle_root: v.merkleRoot ?? undefined,
    contract_address: v.contractAddress ?? undefined,
    chain_id: v.chainId ?? undefined,
  };
}

export function createVerificationHandlers(
  deps: VerificationDeps & { digitalLink: DigitalLinkService },
): AsyncHandlers<CertificateVerificationServiceServer> {
  return {
    verifyCertificate: (req) => verificationOf(deps, req.certificate_id, req.record_event === true),

    async getPublicCertificateByToken(req) {
      return toProto(await deps.verifier.publicCertificateOfToken(req.token_id));
    },

    async resolveDigitalLink(req) {
      const r = await deps.digitalLink.resolve(req.path);
      return {
        certificate_id: r.certificateId,
        livemode: r.livemode,
        gtin: r.gtin,
        serial: r.serial,
        digital_link_path: r.path,
        passport_url: r.passportUrl ?? undefined,
      };
    },
  };
}
