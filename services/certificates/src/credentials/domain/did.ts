// Issuer DIDs and their documents (docs/credentials.md). An enterprise's credentials name one
// of two did:web identifiers, chosen at issue time and stored with each credential:
// - its verified domain's `did:web:<host>` (the brand hosts `https://<host>/.well-known/did.json`,
//   whose content Hallmark shows it), live mode only;
// - otherwise the Hallmark-hosted `did:web:<public host>:issuers:<enterprise id>` (test mode:
//   `…:issuers:<enterprise id>:test`), resolved at `<public URL>/issuers/<id>[/test]/did.json`.
// Both documents list the same keys: every key the enterprise (in that mode) ever had, newest
// first, so a credential signed before a rotation still verifies.
import { DID_V1_CONTEXT_URL, MULTIKEY_CONTEXT_URL } from './context.js';

/** One issuer key as the DID documents show it (never its secret). */
export interface IssuerPublicKey {
  /** `key-<seq>`: the verification method's fragment. */
  keyId: string;
  publicKeyMultibase: string;
  /** Retired keys stay listed (old credentials verify) but sign nothing new. */
  current: boolean;
}

export interface VerificationMethod {
  id: string;
  type: 'Multikey';
  controller: string;
  publicKeyMultibase: string;
}

export interface DidDocument {
  '@context': [typeof DID_V1_CONTEXT_URL, string];
  id: string;
  alsoKnownAs?: string[];
  verificationMethod: VerificationMethod[];
  assertionMethod: string[];
}

/** did:web's host part: a port's colon percent-encoded (did:web method spec › Create). */
const didWebHost = (host: string) => host.toLowerCase().replace(/:/g, '%3A');

/** The did:web of a brand's domain (`website` host, port kept as %3A), or null when unusable. */
export function domainDid(website: string): string | null {
  let url: URL;
  try {
    url = new URL(website);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !url.hostname) return null;
  return `did:web:${didWebHost(url.host)}`;
}

/** Where the brand hosts its domain DID's document. */
export function domainDidUrl(website: string): string {
  return new URL('/.well-known/did.json', new URL(website).origin).toString();
}

/** The Hallmark-hosted did:web of an enterprise in a mode. */
export function hostedDid(publicUrl: string, enterpriseId: string, livemode: boolean): string {
  const url = new URL(publicUrl);
  const path = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return [
    'did:web',
    didWebHost(url.host),
    ...path,
    'issuers',
    enterpriseId,
    ...(livemode ? [] : ['test']),
  ].join(':');
}

/** Where the hosted DID's document is served (did:web resolution of `hostedDid`). */
export function hostedDidUrl(publicUrl: string, enterpriseId: string, livemode: boolean): string {
  const base = publicUrl.replace(/\/+$/, '');
  return `${base}/issuers/${enterpriseId}${livemode ? '' : '/test'}/did.json`;
}

/** What the issuer profile read model says of the domain (null: no profile). */
export interface DomainState {
  website: string;
  domainVerified: boolean;
}

/**
 * The DID a credential issued now names: the verified domain's in live mode, else the hosted
 * one. Test-mode credentials never claim the brand's domain.
 */
export function issuingDid(
  publicUrl: string,
  enterpriseId: string,
  livemode: boolean,
  profile: DomainState | null,
): string {
  const domain = livemode && profile?.domainVerified ? domainDid(profile.website) : null;
  return domain ?? hostedDid(publicUrl, enterpriseId, livemode);
}

/** The DID document of `did` listing `keys` (newest first), optionally naming its other DID. */
export function didDocument(
  did: string,
  keys: readonly IssuerPublicKey[],
  alsoKnownAs: readonly string[] = [],
): DidDocument {
  const ordered = [...keys].sort((a, b) => keySeq(b.keyId) - keySeq(a.keyId));
  const verificationMethod = ordered.map((k): VerificationMethod => ({
    id: `${did}#${k.keyId}`,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: k.publicKeyMultibase,
  }));
  return {
    '@context': [DID_V1_CONTEXT_URL, MULTIKEY_CONTEXT_URL],
    id: did,
    ...(alsoKnownAs.length > 0 ? { alsoKnownAs: [...alsoKnownAs] } : {}),
    verificationMethod,
    assertionMethod: verificationMethod.map((v) => v.id),
  };
}

export const keyIdOf = (seq: number) => `key-${seq}`;
export const keySeq = (keyId: string) => Number(keyId.slice('key-'.length));
