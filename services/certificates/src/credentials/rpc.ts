// CredentialsService handlers: proto ↔ service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type {
  CredentialsServiceServer,
  IssuerIdentity as IssuerIdentityProto,
} from '@hallmark/proto/certificates/v1/credentials';
import type { CredentialService, IssuerIdentity } from './service.js';

const json = (value: unknown) => ({ json: JSON.stringify(value) });

function identityToProto(i: IssuerIdentity): IssuerIdentityProto {
  return {
    hosted_did: i.hostedDid,
    hosted_did_url: i.hostedDidUrl,
    hosted_document_json: JSON.stringify(i.hostedDocument),
    ...(i.domain
      ? {
          domain_did: i.domain.did,
          domain_did_url: i.domain.url,
          domain_document_json: JSON.stringify(i.domain.document),
        }
      : {}),
    domain_verified: i.domainVerified,
    issuing_did: i.issuingDid,
    keys: i.keys.map((k) => ({
      key_id: k.keyId,
      public_key_multibase: k.publicKeyMultibase,
      current: k.current,
    })),
  };
}

export function createCredentialsHandlers(
  service: CredentialService,
): AsyncHandlers<CredentialsServiceServer> {
  return {
    async getCredential(req) {
      return json((await service.credential(req.certificate_id)).credential);
    },
    async getProofBundle(req) {
      return json(await service.bundle(req.certificate_id));
    },
    async getHostedDidDocument(req) {
      return json(await service.hostedDocument(req.enterprise_id, req.livemode));
    },
    async getStatusList(req) {
      return { json: await service.statusList(req.list_id) };
    },
    async getIssuerIdentity(req) {
      return identityToProto(await service.identity(scopeOf(req.principal)));
    },
    async rotateIssuerKey(req) {
      return identityToProto(await service.rotate(scopeOf(req.principal)));
    },
  };
}
