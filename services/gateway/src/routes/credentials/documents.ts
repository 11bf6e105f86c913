// The public documents of verifiable credentials: sent exactly as the certificates service
// signed or built them (JSON text passed through, never re-serialised: a signed document must
// stay byte-for-byte what was signed, and its fields are its own), documented by their schemas.
// No credential; rate group `public`.
import type { FastifyReply } from 'fastify';
import { defineEndpoint, type Access } from '../../endpoint/define.js';
import { closed, idParams, Type } from '../../endpoint/schema.js';
import { Credential, DidDocument, ProofBundle, StatusListCredential } from './schemas.js';

const TAGS = ['Credentials'];
const PUBLIC: Access = { auth: 'public', rateGroup: 'public' };
const JSON_TYPE = 'application/json; charset=utf-8';
const ENTERPRISE = closed({ enterprise_id: Type.String({ minLength: 1, maxLength: 64 }) });

const send = (reply: FastifyReply, json: string, cacheControl: string) =>
  reply.header('content-type', JSON_TYPE).header('cache-control', cacheControl).send(json) as never;

const notYet =
  'Not found: an unknown certificate, or one whose credential is not issued yet (not minted yet, ' +
  'or minted seconds ago: the message says which; retry later)';

export const getCertificateCredential = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/:id/credential',
  operationId: 'getCertificateCredential',
  tags: TAGS,
  summary: "A certificate's verifiable credential (W3C VCDM 2.0, Data Integrity ecdsa-rdfc-2019)",
  description:
    'The signed credential as issued, not wrapped in `{success, data}`: any VC verifier checks it ' +
    "against the issuer's DID document and its status list. " +
    notYet +
    ' → 404 `resource_not_found`.',
  access: PUBLIC,
  params: idParams('id'),
  responses: {
    200: { description: 'The signed credential', contentType: 'application/json', schema: Credential },
  },
  handler: async (request, { clients, reply }) => {
    const doc = await clients.credentials.getCredential(
      { certificate_id: request.params.id },
      { idempotent: true },
    );
    // Issued once and never changed.
    return send(reply, doc.json, 'public, max-age=300');
  },
});

export const getCertificateProof = defineEndpoint({
  method: 'GET',
  url: '/api/certificate/:id/proof',
  operationId: 'getCertificateProof',
  tags: TAGS,
  summary: "A certificate's proof bundle, as a file (hallmark-proof-bundle/1)",
  description:
    'Everything needed to verify the certificate with a chain RPC URL alone (`hallmark verify`): the ' +
    'credential, the hashed metadata and its Merkle proof against the batch root, the mint ' +
    "transaction, chain and contract, the image hash and a snapshot of the issuer's DID document. " +
    'Answered as an attachment `hallmark-proof-<id>.json`. ' +
    notYet +
    ' → 404 `resource_not_found`.',
  access: PUBLIC,
  params: idParams('id'),
  responses: {
    200: { description: 'The proof bundle', contentType: 'application/json', schema: ProofBundle },
  },
  handler: async (request, { clients, reply }) => {
    const { id } = request.params;
    const doc = await clients.credentials.getProofBundle({ certificate_id: id }, { idempotent: true });
    // `id` named a certificate the service found: an id, safe in a header.
    void reply.header('content-disposition', `attachment; filename="hallmark-proof-${id}.json"`);
    return send(reply, doc.json, 'no-store');
  },
});

const didDescription = (test: string) =>
  `What \`did:web:<Hallmark host>:issuers:<enterprise id>${test}\` resolves to: every issuer key the ` +
  'enterprise had (newest first; retired keys stay, so older credentials verify). An enterprise that ' +
  'has issued nothing yet → 404 `resource_not_found`.';

export const getIssuerDidDocument = defineEndpoint({
  method: 'GET',
  url: '/issuers/:enterprise_id/did.json',
  operationId: 'getIssuerDidDocument',
  tags: TAGS,
  summary: "An enterprise's Hallmark-hosted issuer DID document (did:web)",
  description: didDescription(''),
  access: PUBLIC,
  params: ENTERPRISE,
  responses: {
    200: { description: 'The DID document', contentType: 'application/json', schema: DidDocument },
  },
  handler: async (request, { clients, reply }) => {
    const doc = await clients.credentials.getHostedDidDocument(
      { enterprise_id: request.params.enterprise_id, livemode: true },
      { idempotent: true },
    );
    return send(reply, doc.json, 'public, max-age=300');
  },
});

export const getTestIssuerDidDocument = defineEndpoint({
  method: 'GET',
  url: '/issuers/:enterprise_id/test/did.json',
  operationId: 'getTestIssuerDidDocument',
  tags: TAGS,
  summary: "An enterprise's test-mode issuer DID document (did:web)",
  description: didDescription(':test'),
  access: PUBLIC,
  params: ENTERPRISE,
  responses: {
    200: { description: 'The DID document', contentType: 'application/json', schema: DidDocument },
  },
  handler: async (request, { clients, reply }) => {
    const doc = await clients.credentials.getHostedDidDocument(
      { enterprise_id: request.params.enterprise_id, livemode: false },
      { idempotent: true },
    );
    return send(reply, doc.json, 'public, max-age=300');
  },
});

export const getStatusList = defineEndpoint({
  method: 'GET',
  url: '/api/status-lists/:list_id',
  operationId: 'getStatusList',
  tags: TAGS,
  summary: 'A revocation status list (BitstringStatusListCredential)',
  description:
    "Signed by the issuer's current key; a burned certificate's bit is set in the burn's transaction " +
    'and the list is signed again at the next read. Unknown list → 404 `resource_not_found`.',
  access: PUBLIC,
  params: idParams('list_id'),
  responses: {
    200: {
      description: 'The status list credential',
      contentType: 'application/json',
      schema: StatusListCredential,
    },
  },
  handler: async (request, { clients, reply }) => {
    const doc = await clients.credentials.getStatusList(
      { list_id: request.params.list_id },
      { idempotent: true },
    );
    // Short: a revocation shows within half a minute even through shared caches.
    return send(reply, doc.json, 'public, max-age=30');
  },
});
