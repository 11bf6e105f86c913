// The credentials slice's pure rules: a certificate's credential with every optional field
// canonicalises in JSON-LD safe mode (an undefined term would throw), signs and verifies with
// @digitalbazaar/vc (an independent implementation); DID documents keep retired keys (newest
// first) so credentials signed before a rotation still verify; did:web names and their URLs.
import { describe, expect, it } from '@jest/globals';
import { decodeList } from '@digitalbazaar/vc-bitstring-status-list';
import type { CertificateRecord } from '../src/domain/certificate.js';
import { metadataHashOf } from '../src/domain/certificate.js';
import { buildCredential } from '../src/credentials/domain/credential.js';
import { buildBundle } from '../src/credentials/domain/bundle.js';
import {
  didDocument,
  domainDid,
  domainDidUrl,
  hostedDid,
  hostedDidUrl,
  issuingDid,
} from '../src/credentials/domain/did.js';
import { generateKeyMaterial, signCredential } from '../src/credentials/domain/proof.js';
import {
  buildStatusListCredential,
  pgBitOf,
  STATUS_LIST_BYTES,
} from '../src/credentials/domain/status-list.js';
import { verifyIndependently } from './credentials-verify.js';

const PUBLIC = 'https://hallmark.test';
const ENT = 'ent_0123456789abcdefghijklmn';

function certificate(): CertificateRecord {
  const metadata = {
    name: 'Kelly 28',
    description: 'Gold hardware',
    category: 'bags',
    'weird key!': [1, { nested: true }],
    image: { sha256: 'ab'.repeat(32) },
  };
  return {
    id: 'cert_0123456789abcdefghijklmn',
    enterpriseId: ENT,
    livemode: true,
    batchId: 'batch_1',
    position: 3,
    tokenId: 42n,
    name: 'Kelly 28',
    imageUrl: 'https://cdn.brand.example/kelly.png',
    // tokenId and warranty are added after minting: never part of the credential's metadata
    metadata: { ...metadata, tokenId: 42, warranty: { period: 2 } },
    metadataHash: metadataHashOf('Kelly 28', 'https://cdn.brand.example/kelly.png', metadata),
    holderAddress: '0x' + '1'.repeat(40),
    status: 'minted',
    transactionHash: '0x' + 'a'.repeat(64),
    blockNumber: 7,
    gtin: '09506000134352',
    serial: 'SN-0001',
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

const facts = (issuerDid: string) => ({
  id: 'urn:uuid:8a0b9f32-9f3c-4e43-9a59-0d3f4bbf4d11',
  issuerDid,
  mintedAt: new Date('2026-03-04T05:06:07.891Z'),
  contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  chainId: 31337n,
  statusListId: 'sl_1',
  statusIndex: 9,
  referenceNumber: 'HM-ABCD-EFGH-J',
  publicUrl: PUBLIC,
});

describe('a certificate credential', () => {
  it('carries every optional field and canonicalises in safe mode: it signs and @digitalbazaar/vc verifies it', async () => {
    const did = hostedDid(PUBLIC, ENT, true);
    const key = await generateKeyMaterial();
    const unsigned = buildCredential(certificate(), facts(did));
    expect(unsigned.credentialSubject).toEqual({
      id: `${PUBLIC}/verify/cert_0123456789abcdefghijklmn`,
      type: 'CertifiedProduct',
      certificateId: 'cert_0123456789abcdefghijklmn',
      name: 'Kelly 28',
      description: 'Gold hardware',
      image: 'https://cdn.brand.example/kelly.png',
      imageSha256: 'ab'.repeat(32),
      metadata: {
        name: 'Kelly 28',
        description: 'Gold hardware',
        category: 'bags',
        'weird key!': [1, { nested: true }],
        image: { sha256: 'ab'.repeat(32) },
      },
      metadataHash: certificate().metadataHash,
      tokenId: '42',
      contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      chainId: '31337',
      referenceNumber: 'HM-ABCD-EFGH-J',
      gtin: '09506000134352',
      serial: 'SN-0001',
    });
    expect(unsigned.validFrom).toBe('2026-03-04T05:06:07Z');
    expect(unsigned.credentialStatus).toEqual({
      id: `${PUBLIC}/api/status-lists/sl_1#9`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '9',
      statusListCredential: `${PUBLIC}/api/status-lists/sl_1`,
    });
    const signed = await signCredential(unsigned, { ...key, did, keyId: 'key-1' });
    expect(signed.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'ecdsa-rdfc-2019',
      proofPurpose: 'assertionMethod',
      verificationMethod: `${did}#key-1`,
    });
    const doc = didDocument(did, [
      { keyId: 'key-1', publicKeyMultibase: key.publicKeyMultibase, current: true },
    ]);
    expect(await verifyIndependently(signed, [doc])).toEqual({ verified: true, revoked: null });

    // tampering with the hashed metadata breaks the signature
    const tampered = structuredClone(signed);
    (tampered.credentialSubject.metadata as Record<string, unknown>).category = 'shoes';
    expect((await verifyIndependently(tampered, [doc])).verified).toBe(false);
  });

  it('refuses to sign a term the context does not define (safe mode: nothing is silently dropped)', async () => {
    const did = hostedDid(PUBLIC, ENT, true);
    const key = await generateKeyMaterial();
    const unsigned = buildCredential(certificate(), facts(did));
    const odd = { ...unsigned, credentialSubject: { ...unsigned.credentialSubject, undefinedTerm: 'x' } };
    await expect(signCredential(odd, { ...key, did, keyId: 'key-1' })).rejects.toThrow(/[Ss]afe mode/);
  });

  it('leaves out the optional fields a certificate does not have', () => {
    const c = { ...certificate(), imageUrl: null, metadata: { name: 'Ring' }, gtin: null, serial: null };
    const s = buildCredential(c, { ...facts('did:web:x'), referenceNumber: null }).credentialSubject;
    expect(Object.keys(s).sort()).toEqual(
      [
        'certificateId',
        'chainId',
        'contract',
        'id',
        'metadata',
        'metadataHash',
        'name',
        'tokenId',
        'type',
      ].sort(),
    );
  });
});

describe('issuer DIDs', () => {
  it('names the hosted did:web with the port as %3A, and a test-mode DID of its own', () => {
    expect(hostedDid('http://127.0.0.1:8080', ENT, true)).toBe(`did:web:127.0.0.1%3A8080:issuers:${ENT}`);
    expect(hostedDidUrl('http://127.0.0.1:8080/', ENT, true)).toBe(
      `http://127.0.0.1:8080/issuers/${ENT}/did.json`,
    );
    expect(hostedDid(PUBLIC, ENT, false)).toBe(`did:web:hallmark.test:issuers:${ENT}:test`);
    expect(hostedDidUrl(PUBLIC, ENT, false)).toBe(`${PUBLIC}/issuers/${ENT}/test/did.json`);
  });

  it("uses the verified domain's did:web in live mode only, and the hosted one otherwise", () => {
    const verified = { website: 'https://Maison.Example/about', domainVerified: true };
    expect(domainDid(verified.website)).toBe('did:web:maison.example');
    expect(domainDidUrl(verified.website)).toBe('https://maison.example/.well-known/did.json');
    expect(issuingDid(PUBLIC, ENT, true, verified)).toBe('did:web:maison.example');
    expect(issuingDid(PUBLIC, ENT, false, verified)).toBe(hostedDid(PUBLIC, ENT, false));
    expect(issuingDid(PUBLIC, ENT, true, { ...verified, domainVerified: false })).toBe(
      hostedDid(PUBLIC, ENT, true),
    );
    expect(issuingDid(PUBLIC, ENT, true, null)).toBe(hostedDid(PUBLIC, ENT, true));
    expect(domainDid('https://brand.example:8443')).toBe('did:web:brand.example%3A8443');
  });

  it('keeps retired keys after a rotation, newest first, in verificationMethod and assertionMethod', () => {
    const did = 'did:web:maison.example';
    const doc = didDocument(did, [
      { keyId: 'key-1', publicKeyMultibase: 'zOld', current: false },
      { keyId: 'key-2', publicKeyMultibase: 'zNew', current: true },
    ]);
    expect(doc).toEqual({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: did,
      verificationMethod: [
        { id: `${did}#key-2`, type: 'Multikey', controller: did, publicKeyMultibase: 'zNew' },
        { id: `${did}#key-1`, type: 'Multikey', controller: did, publicKeyMultibase: 'zOld' },
      ],
      assertionMethod: [`${did}#key-2`, `${did}#key-1`],
    });
  });

  it('a credential signed with a key retired by a rotation still verifies against the new document', async () => {
    const did = hostedDid(PUBLIC, ENT, true);
    const [k1, k2] = [await generateKeyMaterial(), await generateKeyMaterial()];
    const old = await signCredential(buildCredential(certificate(), facts(did)), {
      ...k1,
      did,
      keyId: 'key-1',
    });
    const fresh = await signCredential(buildCredential(certificate(), facts(did)), {
      ...k2,
      did,
      keyId: 'key-2',
    });
    const doc = didDocument(did, [
      { keyId: 'key-1', publicKeyMultibase: k1.publicKeyMultibase, current: false },
      { keyId: 'key-2', publicKeyMultibase: k2.publicKeyMultibase, current: true },
    ]);
    for (const credential of [old, fresh]) {
      expect(await verifyIndependently(credential, [doc])).toEqual({ verified: true, revoked: null });
    }
  });
});

describe('status lists', () => {
  it('maps an index to the bit PostgreSQL sets (most significant bit first) and the signed list reads it back', async () => {
    expect([0, 1, 7, 8, 131_071].map(pgBitOf)).toEqual([7, 6, 0, 15, 131_064]);
    expect(() => pgBitOf(131_072)).toThrow(RangeError);
    const bits = new Uint8Array(STATUS_LIST_BYTES);
    bits[1] = 0b0100_0000; // index 9, as set_bit(bits, pgBitOf(9) = 14, 1) leaves it
    expect(pgBitOf(9)).toBe(14);
    const did = hostedDid(PUBLIC, ENT, true);
    const key = await generateKeyMaterial();
    const list = await signCredential(
      await buildStatusListCredential({
        publicUrl: PUBLIC,
        listId: 'sl_1',
        issuerDid: did,
        bits,
        validFrom: new Date(),
      }),
      { ...key, did, keyId: 'key-1' },
    );
    const decoded = await decodeList({
      encodedList: (list.credentialSubject as { encodedList: string }).encodedList,
    });
    expect(decoded.length).toBe(131_072);
    expect([decoded.getStatus(9), decoded.getStatus(8), decoded.getStatus(10)]).toEqual([true, false, false]);
    const doc = didDocument(did, [
      { keyId: 'key-1', publicKeyMultibase: key.publicKeyMultibase, current: true },
    ]);
    const credential = await signCredential(buildCredential(certificate(), facts(did)), {
      ...key,
      did,
      keyId: 'key-1',
    });
    const lists = new Map([[`${PUBLIC}/api/status-lists/sl_1`, list]]);
    expect(await verifyIndependently(credential, [doc], lists)).toEqual({ verified: true, revoked: true });
  });
});

describe('a proof bundle', () => {
  it("carries the owner's accepted service records beside what it proves (never inside the signed credential)", () => {
    const entry = {
      id: 'svcrec_1',
      kind: 'repair' as const,
      label: null,
      performedAt: '2026-05-01',
      performer: 'Atelier Nord',
      description: 'Strap replaced',
      attachments: [],
      acceptedAt: '2026-05-02T10:00:00.000Z',
    };
    const c = { ...certificate(), serviceHistory: [entry] };
    const credential = buildCredential(c, facts('did:web:x')) as unknown as Record<string, unknown>;
    const facts2 = {
      credential,
      merkleRoot: '0x' + '1'.repeat(64),
      batchKey: '0x' + '2'.repeat(64),
      proof: [],
      didDocument: { id: 'did:web:x' } as never,
      now: new Date('2026-06-01T00:00:00Z'),
    };
    expect(buildBundle(c, facts2).serviceHistory).toEqual([entry]);
    expect(JSON.stringify(credential)).not.toContain('Strap replaced');
    expect(buildBundle({ ...c, serviceHistory: undefined }, facts2).serviceHistory).toEqual([]);
  });
});
