// The credential's checks: its issuer's DID document (live, else the bundle's snapshot), its
// Data Integrity signature, and its revocation entry in the issuer's Bitstring Status List.
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import type { Credential, ProofBundle } from '../bundle.js';
import { createDocumentLoader, fixedDidResolver, type DidDocument, type DidResolver } from '../loader.js';
import type { Check } from '../report.js';

export const issuerOf = (credential: Credential): string =>
  typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;

const verifySuite = () => new DataIntegrityProof({ cryptosuite: ecdsaRdfc2019 });

/** The most telling message of a Digital Bazaar verification result. */
function reasonOf(result: { error?: Error & { errors?: Error[] }; results?: { error?: Error }[] }): string {
  return (
    result.error?.errors?.[0]?.message ??
    result.results?.find((r) => r.error)?.error?.message ??
    result.error?.message ??
    'no reason given'
  );
}

export interface IssuerResolution {
  check: Check;
  /** The DID document to verify with (live or snapshot), or null when there is none to trust. */
  document: DidDocument | null;
  note?: string;
}

/** The issuer's DID document: resolved live, or the bundle's snapshot when that is impossible. */
export async function resolveIssuer(bundle: ProofBundle, resolveDid: DidResolver): Promise<IssuerResolution> {
  const did = issuerOf(bundle.credential);
  const snapshot = bundle.issuer.didDocument;
  if (bundle.issuer.did !== did) {
    return {
      document: null,
      check: {
        name: 'issuer_did',
        result: 'failed',
        detail: `The bundle names issuer ${bundle.issuer.did}, but the credential was issued by ${did}.`,
      },
    };
  }
  try {
    const live = await resolveDid(did);
    return {
      document: live,
      check: { name: 'issuer_did', result: 'passed', detail: `${did} resolved live.` },
    };
  } catch (err) {
    const reason = (err as Error).message;
    if (snapshot.id !== did) {
      return {
        document: null,
        check: {
          name: 'issuer_did',
          result: 'failed',
          detail: `${did} could not be resolved (${reason}) and the bundle's snapshot is of another DID (${String(snapshot.id)}).`,
        },
      };
    }
    const note =
      `Issuer domain unreachable: ${did} could not be resolved live (${reason}). The signature was checked ` +
      `with the bundle's snapshot of the issuer's DID document (taken ${bundle.issuer.snapshotAt}); ` +
      'the chain checks do not depend on it.';
    return {
      document: snapshot,
      note,
      check: {
        name: 'issuer_did',
        result: 'unknown',
        detail: `Issuer domain unreachable; used the bundle's snapshot of ${did} (taken ${bundle.issuer.snapshotAt}).`,
      },
    };
  }
}

/** The credential's Data Integrity proof (ecdsa-rdfc-2019), verified with the issuer's document. */
export async function checkSignature(
  credential: Credential,
  issuer: DidDocument | null,
  now: Date | undefined,
): Promise<Check> {
  const name = 'credential_signature';
  if (!issuer)
    return { name, result: 'failed', detail: 'No DID document of the issuer to verify the signature with.' };
  const proof = credential.proof ?? {};
  if (proof.type !== 'DataIntegrityProof' || proof.cryptosuite !== 'ecdsa-rdfc-2019') {
    return {
      name,
      result: 'failed',
      detail: `The proof is ${String(proof.type)}/${String(proof.cryptosuite)}, not DataIntegrityProof/ecdsa-rdfc-2019.`,
    };
  }
  const result = await vc.verifyCredential({
    credential,
    suite: verifySuite(),
    documentLoader: createDocumentLoader({ resolveDid: fixedDidResolver(issuer) }),
    // Revocation is its own check (status_list): an unreachable list must not fail the signature.
    checkStatus: async () => ({ verified: true }),
    ...(now ? { now } : {}),
  });
  if (!result.verified) {
    return { name, result: 'failed', detail: `The signature does not verify: ${reasonOf(result)}.` };
  }
  return {
    name,
    result: 'passed',
    detail: `Signed by ${String(proof.verificationMethod)} (ecdsa-rdfc-2019); the signed content is unchanged.`,
  };
}

export interface StatusCheck {
  check: Check;
  note?: string;
}

/** The credential's revocation entry, read from the issuer's status list fetched live. */
export async function checkStatusList(
  credential: Credential,
  issuer: DidDocument | null,
  doFetch: typeof fetch,
  timeoutMs: number,
): Promise<StatusCheck> {
  const name = 'status_list';
  const entry = credential.credentialStatus;
  if (!entry || typeof entry.statusListCredential !== 'string') {
    return { check: { name, result: 'unknown', detail: 'The credential carries no status list entry.' } };
  }
  const url = entry.statusListCredential;
  let list: unknown;
  try {
    const res = await doFetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    list = await res.json();
  } catch (err) {
    const reason = (err as Error).message;
    return {
      note: `Status unknown: the issuer's status list (${url}) could not be fetched (${reason}), so a revocation by the issuer cannot be ruled out; a burn is still seen on chain (token check).`,
      check: { name, result: 'unknown', detail: `Status unknown: ${url} could not be fetched (${reason}).` },
    };
  }
  if (!issuer)
    return { check: { name, result: 'unknown', detail: 'No issuer DID document to check the list with.' } };
  const result = await checkStatus({
    credential,
    suite: verifySuite(),
    documentLoader: createDocumentLoader({
      resolveDid: fixedDidResolver(issuer),
      documents: new Map([[url, list]]),
    }),
    verifyBitstringStatusListCredential: true,
    verifyMatchingIssuers: true,
  });
  if (!result.verified) {
    return {
      check: { name, result: 'failed', detail: `The status list does not verify: ${reasonOf(result)}.` },
    };
  }
  const index = entry.statusListIndex;
  if (result.results?.[0]?.status) {
    return {
      check: {
        name,
        result: 'failed',
        revoked: true,
        detail: `Revoked by the issuer (status list ${url}, entry ${index}).`,
      },
    };
  }
  return {
    check: {
      name,
      result: 'passed',
      detail: `Not revoked (status list ${url}, entry ${index}, signed by the issuer).`,
    },
  };
}
