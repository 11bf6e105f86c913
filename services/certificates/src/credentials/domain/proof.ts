// Data Integrity proofs (ecdsa-rdfc-2019, P-256 Multikey) over Hallmark's credentials: key
// generation and signing with the static loader (./context.ts), so signing never fetches a
// context. Verification lives with the verifiers (packages/verify, and the tests with
// @digitalbazaar/vc itself).
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { cryptosuite } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { staticDocumentLoader } from './context.js';

/** A P-256 key pair in Multikey form; the secret is stored only encrypted. */
export interface KeyMaterial {
  publicKeyMultibase: string;
  secretKeyMultibase: string;
}

export async function generateKeyMaterial(): Promise<KeyMaterial> {
  const key = await EcdsaMultikey.generate({ curve: 'P-256' });
  const exported = await key.export({ publicKey: true, secretKey: true });
  return {
    publicKeyMultibase: exported.publicKeyMultibase!,
    secretKeyMultibase: exported.secretKeyMultibase!,
  };
}

/** Who signs: the DID the credential names and the key (`key-<n>`) of that DID. */
export interface SigningKey extends KeyMaterial {
  did: string;
  keyId: string;
}

/** Imported signers by key: most recently used last, at most SIGNERS_KEPT. */
const signers = new Map<string, Promise<Signer>>();
const SIGNERS_KEPT = 256;
type Signer = ReturnType<Awaited<ReturnType<typeof EcdsaMultikey.from>>['signer']>;

/**
 * The key's signer, imported once: importing a Multikey (decode, two WebCrypto imports) cost as
 * much CPU as the signature itself, and an issuing pass signs every credential of an enterprise
 * with the same key. Keyed by the whole key material, so a rotated key is a new entry.
 */
function signerOf(key: SigningKey): Promise<Signer> {
  const id = `${key.did}#${key.keyId}`;
  const cacheKey = `${id} ${key.publicKeyMultibase} ${key.secretKeyMultibase}`;
  let signer = signers.get(cacheKey);
  if (signer) signers.delete(cacheKey);
  else {
    signer = EcdsaMultikey.from({
      type: 'Multikey',
      id,
      controller: key.did,
      publicKeyMultibase: key.publicKeyMultibase,
      secretKeyMultibase: key.secretKeyMultibase,
    }).then((pair) => pair.signer());
    signer.catch(() => signers.delete(cacheKey));
  }
  signers.set(cacheKey, signer);
  if (signers.size > SIGNERS_KEPT) signers.delete(signers.keys().next().value!);
  return signer;
}

/** The credential with its DataIntegrityProof (proofPurpose assertionMethod). */
export async function signCredential<T extends object>(
  credential: T,
  key: SigningKey,
  now?: Date,
): Promise<T & { proof: Record<string, unknown> }> {
  const suite = new DataIntegrityProof({
    signer: await signerOf(key),
    cryptosuite,
    ...(now ? { date: now } : {}),
  });
  return (await vc.issue({ credential, suite, documentLoader: staticDocumentLoader() })) as T & {
    proof: Record<string, unknown>;
  };
}
