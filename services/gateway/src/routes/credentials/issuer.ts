// The enterprise's issuer identity (its DIDs, the document its domain hosts, its keys) and the
// rotation of its issuer key. Needs admin.* (a session holds it): like the issuer profile, an
// enterprise's identity is its administrators' business. One call to CredentialsService each.
import type { IssuerIdentity as IdentityRecord } from '@hallmark/proto/certificates/v1/credentials';
import { defineEndpoint, type Access } from '../../endpoint/define.js';
import type { Static } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { IssuerIdentity } from './schemas.js';

const TAGS = ['Credentials'];
const ADMIN: Access = { auth: 'either', scope: 'admin.*' };

type Doc = Static<typeof IssuerIdentity>['hostedDocument'];

function presentIdentity(i: IdentityRecord): Static<typeof IssuerIdentity> {
  return {
    hostedDid: i.hosted_did,
    hostedDidUrl: i.hosted_did_url,
    hostedDocument: JSON.parse(i.hosted_document_json) as Doc,
    domain:
      i.domain_did && i.domain_did_url && i.domain_document_json
        ? {
            did: i.domain_did,
            url: i.domain_did_url,
            document: JSON.parse(i.domain_document_json) as Doc,
            verified: i.domain_verified,
          }
        : null,
    issuingDid: i.issuing_did,
    keys: i.keys.map((k) => ({
      keyId: k.key_id,
      publicKeyMultibase: k.public_key_multibase,
      current: k.current,
    })),
  };
}

export const getIssuerIdentity = defineEndpoint({
  method: 'GET',
  url: '/api/v1/issuer',
  operationId: 'getIssuerIdentity',
  tags: TAGS,
  summary: "The enterprise's issuer DIDs, the did.json its domain hosts, and its keys",
  description:
    'Credentials name `domain.did` once the issuer-profile domain is verified (live mode), else ' +
    '`hostedDid`. Host `domain.document` at `domain.url` (docs/credentials.md). Creates the first ' +
    'issuer key when there is none.',
  access: ADMIN,
  responses: { 200: { description: 'The issuer identity', schema: IssuerIdentity } },
  handler: async (request, { clients }) =>
    presentIdentity(
      await clients.credentials.getIssuerIdentity({ principal: principalOf(request) }, { idempotent: true }),
    ),
});

export const rotateIssuerKey = defineEndpoint({
  method: 'POST',
  url: '/api/v1/issuer/keys/rotate',
  operationId: 'rotateIssuerKey',
  tags: TAGS,
  summary: 'Rotate the issuer key: a new key signs from now on; the old one stays listed',
  description:
    'Credentials and status lists are signed with the new key from now on; every older key stays in ' +
    'both DID documents, so credentials signed before still verify. With a domain DID, host the ' +
    'updated `domain.document` at once (until then, new credentials do not verify against the old copy).',
  access: ADMIN,
  responses: { 200: { description: 'The issuer identity after the rotation', schema: IssuerIdentity } },
  handler: async (request, { clients }) =>
    presentIdentity(await clients.credentials.rotateIssuerKey({ principal: principalOf(request) })),
});
