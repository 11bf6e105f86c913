// Documentation schemas of the credential documents (the answers are sent as the service built
// them: these describe them, they do not cut them). Open objects: a credential's fields are the
// W3C data model's, and JSON-LD allows more.
import { bool, list, nullable, str, Type } from '../../endpoint/schema.js';

const open = <P extends Parameters<typeof Type.Object>[0]>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: true, description });
const anyObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

const Proof = open(
  {
    type: Type.Literal('DataIntegrityProof'),
    cryptosuite: Type.Literal('ecdsa-rdfc-2019'),
    proofPurpose: Type.Literal('assertionMethod'),
    verificationMethod: str(2048, '<issuer DID>#key-<n>'),
    created: Type.Optional(str(40)),
    proofValue: str(1024),
  },
  'The Data Integrity proof',
);

export const Credential = open(
  {
    '@context': Type.Array(Type.Unknown(), {
      maxItems: 8,
      description: 'The VC v2 context and the inline Hallmark context',
    }),
    id: str(64, 'urn:uuid:…'),
    type: list(str(64), 8),
    issuer: str(2048, 'The issuer DID (did:web)'),
    validFrom: str(40, 'The mint time'),
    credentialSubject: anyObject(
      'The certificate: id (its verify page), certificateId, name, description?, image?, imageSha256?, ' +
        'metadata (the object whose hash was minted), metadataHash, tokenId, contract, chainId, ' +
        'referenceNumber?, gtin?, serial?',
    ),
    credentialStatus: anyObject('BitstringStatusListEntry (revocation)'),
    proof: Proof,
  },
  'A certificate as a W3C verifiable credential',
);

export const ProofBundle = open(
  {
    format: Type.Literal('hallmark-proof-bundle/1'),
    certificateId: str(64),
    credential: Credential,
    metadata: anyObject('{name, imageUrl, metadata, hash}: the Merkle leaf preimage and its keccak256'),
    merkle: anyObject(
      '{root, batchKey, index, proof}: the proof of the hash against the batch root on chain',
    ),
    mint: anyObject('{transactionHash, blockNumber}'),
    chain: anyObject('{chainId, contract, tokenId}'),
    image: Type.Unsafe<Record<string, unknown> | null>({
      type: ['object', 'null'],
      additionalProperties: true,
      description: '{sha256, url}, or null without an anchored image hash',
    }),
    issuer: anyObject('{did, didDocument, snapshotAt}: the DID document as it was when the bundle was made'),
    createdAt: str(40),
  },
  'Everything to verify a certificate with a chain RPC URL alone',
);

export const DidDocument = open(
  {
    '@context': list(str(2048), 8),
    id: str(2048, 'did:web:…'),
    alsoKnownAs: Type.Optional(list(str(2048), 4)),
    verificationMethod: list(
      Type.Object({
        id: str(2048),
        type: Type.Literal('Multikey'),
        controller: str(2048),
        publicKeyMultibase: str(128),
      }),
      1000,
    ),
    assertionMethod: list(str(2048), 1000),
  },
  'A DID document: the issuer keys, newest first',
);

export const StatusListCredential = open(
  {
    '@context': list(str(2048), 8),
    id: str(2048),
    type: list(str(64), 8),
    issuer: str(2048),
    validFrom: str(40),
    credentialSubject: anyObject('{id, type: BitstringStatusList, statusPurpose: revocation, encodedList}'),
    proof: Proof,
  },
  'A W3C Bitstring Status List credential',
);

/** The enterprise's issuer identity (GET /api/v1/issuer). */
export const IssuerIdentity = Type.Object({
  hostedDid: str(2048, 'did:web:<Hallmark host>:issuers:<enterprise id>[:test]'),
  hostedDidUrl: str(2048, 'Where Hallmark serves it'),
  hostedDocument: DidDocument,
  domain: nullable(
    Type.Object({
      did: str(2048, 'did:web:<your domain>'),
      url: str(2048, 'Where to host the document: https://<your domain>/.well-known/did.json'),
      document: DidDocument,
      verified: bool,
    }),
  ),
  issuingDid: str(2048, 'The DID credentials issued now name'),
  keys: list(Type.Object({ keyId: str(32), publicKeyMultibase: str(128), current: bool }), 1000),
});
