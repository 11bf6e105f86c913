// The JSON-LD contexts a Hallmark credential uses, bundled: a verifier never fetches a context
// over the network (a context server that changed or vanished would change what a signature
// means). The VC 2.0 context has no @vocab, so every Hallmark term is defined in the inline
// context below; JSON-LD safe mode (used by the ecdsa-rdfc-2019 canonicalisation) throws on a
// term it cannot map, so a credential with an undefined term can be neither signed nor verified.
import * as credentialsContext from '@digitalbazaar/credentials-context';
import * as dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import * as multikeyContext from '@digitalbazaar/multikey-context';

export const VC_V2_CONTEXT_URL = 'https://www.w3.org/ns/credentials/v2';

/** Hallmark's terms, carried inline after the VC 2.0 context URL in every credential. */
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

/** The `@context` of a Hallmark credential: the VC 2.0 URL, then the inline Hallmark context. */
export const CREDENTIAL_CONTEXT = [VC_V2_CONTEXT_URL, HALLMARK_CONTEXT] as const;

/**
 * Every context document a Hallmark credential, its proof, its status list or its issuer's
 * verification method refers to, by URL: VC 1.1 and 2.0, Data Integrity, Multikey.
 */
export const CREDENTIAL_CONTEXTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ...credentialsContext.contexts,
  ...dataIntegrityContext.contexts,
  ...multikeyContext.contexts,
]);
