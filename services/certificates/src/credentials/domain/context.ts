// The JSON-LD contexts of Hallmark's credentials and a document loader that never touches the
// network: the bundled W3C credentials v2, Data Integrity and Multikey contexts plus DID
// documents the caller hands in. @hallmark/verify (the independent verifier, which depends on
// no Hallmark code) holds the same context: packages/verify/test/context.test.ts fails when
// the two differ.
import * as credentialsContext from '@digitalbazaar/credentials-context';
import dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import multikeyContext from '@digitalbazaar/multikey-context';
import { JsonLdDocumentLoader } from 'jsonld-document-loader';

export const VC_V2_CONTEXT_URL = 'https://www.w3.org/ns/credentials/v2';
export const DID_V1_CONTEXT_URL = 'https://www.w3.org/ns/did/v1';
export const MULTIKEY_CONTEXT_URL = multikeyContext.CONTEXT_URL;

/**
 * The inline context of a Hallmark certificate credential (the VC v2 context has no @vocab:
 * every custom term is defined, so canonicalisation in safe mode never drops a field).
 */
export const HALLMARK_CONTEXT = {
  '@protected': true,
  CertificateOfAuthenticity: 'https://hallmark.dev/ns#CertificateOfAuthenticity',
  CertifiedProduct: 'https://hallmark.dev/ns#CertifiedProduct',
  certificateId: 'https://hallmark.dev/ns#certificateId',
  referenceNumber: 'https://hallmark.dev/ns#referenceNumber',
  image: { '@id': 'https://schema.org/image', '@type': '@id' },
  imageSha256: 'https://hallmark.dev/ns#imageSha256',
  metadata: { '@id': 'https://hallmark.dev/ns#metadata', '@type': '@json' },
  metadataHash: 'https://hallmark.dev/ns#metadataHash',
  tokenId: 'https://hallmark.dev/ns#tokenId',
  contract: 'https://hallmark.dev/ns#contract',
  chainId: 'https://hallmark.dev/ns#chainId',
  gtin: 'https://gs1.org/voc/gtin',
  serial: 'https://gs1.org/voc/serialNumber',
} as const;

export const CREDENTIAL_CONTEXTS = [VC_V2_CONTEXT_URL, HALLMARK_CONTEXT] as const;

export type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string }>;

const contextsOnly = (() => {
  const loader = new JsonLdDocumentLoader();
  for (const [url, doc] of credentialsContext.contexts) loader.addStatic(url, doc as object);
  loader.addStatic(dataIntegrityContext.CONTEXT_URL, dataIntegrityContext.CONTEXT);
  loader.addStatic(multikeyContext.CONTEXT_URL, multikeyContext.CONTEXT);
  return loader.build();
})();

/** A DID document the loader answers for its DID and each of its verification methods. */
export interface DidDocumentLike {
  id: string;
  verificationMethod: ReadonlyArray<{ id: string }>;
}

/**
 * The static loader: bundled contexts, the given DID documents (a DID, or a verification
 * method by its `did#key` URL), and extra documents by URL (a status list credential). Anything
 * else is refused: nothing is ever fetched.
 */
export function staticDocumentLoader(
  dids: readonly DidDocumentLike[] = [],
  documents: ReadonlyMap<string, unknown> = new Map(),
): DocumentLoader {
  return async (url) => {
    const extra = documents.get(url);
    if (extra !== undefined) return { document: extra, documentUrl: url };
    const [base] = url.split('#');
    const did = dids.find((d) => d.id === base);
    if (did) {
      if (!url.includes('#')) return { document: did, documentUrl: url };
      const vm = did.verificationMethod.find((v) => v.id === url);
      if (vm) return { document: { '@context': MULTIKEY_CONTEXT_URL, ...vm }, documentUrl: url };
    }
    return contextsOnly(url);
  };
}
