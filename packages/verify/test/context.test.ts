// The inline Hallmark context defines every term a credential carries: JSON-LD safe mode (the
// canonicalisation ecdsa-rdfc-2019 signs) accepts a credential with every field of the design,
// and refuses one with a term the context does not define. And did:web DIDs map to their URLs.
import { describe, expect, it } from '@jest/globals';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import * as issuing from '../../../services/certificates/src/credentials/domain/context.js';
import {
  CREDENTIAL_CONTEXT,
  createDocumentLoader,
  didWebUrl,
  fixedDidResolver,
  HALLMARK_CONTEXT,
  staticDocumentLoader,
  VC_V2_CONTEXT_URL,
  type DidDocument,
} from '../src/index.js';

const DID = 'did:web:brand.example';

async function signer() {
  const key = await EcdsaMultikey.generate({ curve: 'P-256', id: `${DID}#key-1`, controller: DID });
  const doc: DidDocument = {
    id: DID,
    verificationMethod: [(await key.export({ publicKey: true, includeContext: false })) as never],
    assertionMethod: [`${DID}#key-1`],
  };
  const documentLoader = createDocumentLoader({ resolveDid: fixedDidResolver(doc) });
  return (credential: Record<string, unknown>) =>
    vc.issue({
      credential,
      suite: new DataIntegrityProof({ signer: key.signer(), cryptosuite: ecdsaRdfc2019 }),
      documentLoader,
    });
}

const credential = (subject: Record<string, unknown>) => ({
  '@context': CREDENTIAL_CONTEXT,
  id: 'urn:uuid:7d1f6f4a-3a47-4a5c-9d0a-2c1f1c1e0b9a',
  type: ['VerifiableCredential', 'CertificateOfAuthenticity'],
  issuer: DID,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: subject,
  credentialStatus: {
    id: 'https://hallmark.example/api/status-lists/sl_1#7',
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: '7',
    statusListCredential: 'https://hallmark.example/api/status-lists/sl_1',
  },
});

const FULL_SUBJECT = {
  id: 'https://hallmark.example/verify/cert_1',
  type: 'CertifiedProduct',
  certificateId: 'cert_1',
  name: 'Gold Watch',
  description: 'A gold watch',
  image: 'https://img.brand.example/watch.png',
  imageSha256: 'ab'.repeat(32),
  metadata: { name: 'Gold Watch', 'any key at all!': { nested: [1, 'two', null] } },
  metadataHash: `0x${'cd'.repeat(32)}`,
  tokenId: '12',
  contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  chainId: '31337',
  referenceNumber: 'REF-1',
  gtin: '09506000134352',
  serial: 'SN-1',
};

describe('the Hallmark context', () => {
  it('is the very context the certificates service signs with (two copies, kept equal here)', () => {
    expect(issuing.HALLMARK_CONTEXT).toEqual(HALLMARK_CONTEXT);
    expect(issuing.VC_V2_CONTEXT_URL).toBe(VC_V2_CONTEXT_URL);
  });

  it('canonicalises every credential field of the design in safe mode (a credential with all of them signs)', async () => {
    const signed = await (await signer())(credential(FULL_SUBJECT));
    expect(signed.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-rdfc-2019' });
  });

  it('refuses a term it does not define (safe mode validation error)', async () => {
    await expect((await signer())(credential({ ...FULL_SUBJECT, colour: 'gold' }))).rejects.toThrow(
      /Safe mode validation error/,
    );
  });

  it('never fetches a context: an unknown context URL is an error', async () => {
    await expect(staticDocumentLoader('https://example.com/context.jsonld')).rejects.toThrow(
      /not a bundled context/,
    );
    expect((await staticDocumentLoader('https://www.w3.org/ns/credentials/v2')).document).toBeTruthy();
  });
});

describe('did:web', () => {
  it.each([
    ['did:web:brand.example', 'https://brand.example/.well-known/did.json'],
    ['did:web:hallmark.example:issuers:ent_1', 'https://hallmark.example/issuers/ent_1/did.json'],
    ['did:web:hallmark.example%3A8443:issuers:ent_1', 'https://hallmark.example:8443/issuers/ent_1/did.json'],
    ['did:web:127.0.0.1%3A8080:issuers:ent_1', 'http://127.0.0.1:8080/issuers/ent_1/did.json'],
    ['did:web:localhost%3A8080', 'http://localhost:8080/.well-known/did.json'],
  ])('%s resolves at %s (https; plain http only for localhost)', (did, url) => {
    expect(didWebUrl(did).href).toBe(url);
  });

  it.each(['did:key:z6Mk', 'did:web:', 'did:web:a.example:..:x', 'did:web:a.example%2Fpath'])(
    '%s is refused',
    (did) => {
      expect(() => didWebUrl(did)).toThrow();
    },
  );
});
