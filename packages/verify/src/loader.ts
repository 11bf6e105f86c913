// JSON-LD document loading for Hallmark credentials: contexts come only from the bundled copies
// (never the network), DIDs from a resolver the caller chooses (did:web over HTTP by default, or
// a DID document already in hand, such as a proof bundle's snapshot).
import { CONTEXT_URL as MULTIKEY_CONTEXT_URL } from '@digitalbazaar/multikey-context';
import { CREDENTIAL_CONTEXTS } from './context.js';

export interface RemoteDocument {
  contextUrl: null;
  document: unknown;
  documentUrl: string;
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/** A DID document as far as verification reads it. */
export interface DidDocument {
  id: string;
  verificationMethod?: { id: string; type: string; controller: string; [k: string]: unknown }[];
  assertionMethod?: (string | { id: string })[];
  [k: string]: unknown;
}

/** Answers the DID document of a DID (without fragment), or throws. */
export type DidResolver = (did: string) => Promise<DidDocument>;

/** The bundled contexts, and nothing else: any other URL throws. */
export const staticDocumentLoader: DocumentLoader = async (url) => {
  const document = CREDENTIAL_CONTEXTS.get(url);
  if (document === undefined) {
    throw new Error(`${url} is not a bundled context (contexts are never fetched from the network)`);
  }
  return { contextUrl: null, document, documentUrl: url };
};

export interface DocumentLoaderOptions {
  /** Resolves `did:` URLs; without it a DID cannot be loaded. */
  resolveDid?: DidResolver;
  /** Further documents by URL (e.g. a status list credential already fetched). */
  documents?: ReadonlyMap<string, unknown>;
}

/**
 * A document loader for verifying (or issuing) Hallmark credentials: bundled contexts, a DID
 * (the resolver's document) and a DID URL with a fragment (that verification method of the
 * document, with the Multikey context, as Data Integrity verifiers expect it).
 */
export function createDocumentLoader(options: DocumentLoaderOptions = {}): DocumentLoader {
  return async (url) => {
    const known = options.documents?.get(url);
    if (known !== undefined) return { contextUrl: null, document: known, documentUrl: url };
    if (!url.startsWith('did:')) return staticDocumentLoader(url);
    if (!options.resolveDid) throw new Error(`no DID resolver to load ${url}`);
    const [did, fragment] = url.split('#') as [string, string | undefined];
    const doc = await options.resolveDid(did);
    if (doc.id !== did) throw new Error(`the DID document of ${did} names another DID (${String(doc.id)})`);
    if (fragment === undefined) return { contextUrl: null, document: doc, documentUrl: url };
    const method = (doc.verificationMethod ?? []).find((m) => m.id === url || m.id === `#${fragment}`);
    if (!method) throw new Error(`the DID document of ${did} has no verification method ${url}`);
    return {
      contextUrl: null,
      document: { '@context': MULTIKEY_CONTEXT_URL, ...method, id: url },
      documentUrl: url,
    };
  };
}

/** A resolver that answers one DID document (for its own DID only). */
export function fixedDidResolver(doc: DidDocument): DidResolver {
  return async (did) => {
    if (did !== doc.id) throw new Error(`no DID document for ${did}`);
    return doc;
  };
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The URL of a did:web DID's document (W3C did:web method): `did:web:example.com` →
 * https://example.com/.well-known/did.json, `did:web:example.com%3A8443:issuers:ent_1` →
 * https://example.com:8443/issuers/ent_1/did.json. Plain http only for localhost/127.0.0.1.
 */
export function didWebUrl(did: string): URL {
  const m = /^did:web:([^:#?/]+)((?::[^:#?/]+)*)$/.exec(did);
  if (!m) throw new Error(`${did} is not a did:web DID`);
  const host = decodeURIComponent(m[1]!);
  const path = m[2] ? m[2].slice(1).split(':').map(decodeURIComponent) : [];
  if (
    !/^[A-Za-z0-9.[\]:-]+$/.test(host) ||
    path.some((p) => p === '' || p === '.' || p === '..' || p.includes('/'))
  ) {
    throw new Error(`${did} is not a valid did:web DID`);
  }
  const hostname = host.replace(/:\d+$/, '');
  const scheme = LOCAL_HOSTS.has(hostname) ? 'http' : 'https';
  return new URL(`${scheme}://${host}/${path.length ? path.join('/') : '.well-known'}/did.json`);
}

export interface DidWebOptions {
  fetch?: typeof fetch;
  /** Give up on an issuer domain after this long (default 10 s). */
  timeoutMs?: number;
}

/** Resolves a did:web DID by fetching its document; throws with the reason when it cannot. */
export function didWebResolver(options: DidWebOptions = {}): DidResolver {
  const doFetch = options.fetch ?? globalThis.fetch;
  return async (did) => {
    const url = didWebUrl(did);
    const res = await doFetch(url, {
      headers: { accept: 'application/did+json, application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      redirect: 'follow',
    });
    if (!res.ok) throw new Error(`${url.href} answered HTTP ${res.status}`);
    const doc = (await res.json()) as DidDocument;
    if (!doc || typeof doc !== 'object' || doc.id !== did) {
      throw new Error(`${url.href} does not hold the DID document of ${did}`);
    }
    return doc;
  };
}
