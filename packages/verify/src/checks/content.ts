// Checks of the bundle's own content: the signed credential names what the bundle claims, the
// metadata hashes to the signed hash, and an image file given hashes to the certified sha256.
import type { ProofBundle } from '../bundle.js';
import { canonicalJson, metadataHashOf } from '../canonical.js';
import type { Check } from '../report.js';
import { issuerOf } from './credential.js';

const same = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/** The signed credential's subject agrees with the bundle's chain, metadata and issuer. */
export function checkSubject(bundle: ProofBundle): Check {
  const c = bundle.credential;
  const s = c.credentialSubject;
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  expect(c.type.includes('CertificateOfAuthenticity'), 'the credential is not a CertificateOfAuthenticity');
  expect(issuerOf(c) === bundle.issuer.did, `issuer ${issuerOf(c)} is not the bundle's ${bundle.issuer.did}`);
  expect(
    s.certificateId === bundle.certificateId,
    `certificateId ${String(s.certificateId)} is not ${bundle.certificateId}`,
  );
  expect(s.tokenId === bundle.chain.tokenId, `tokenId ${String(s.tokenId)} is not ${bundle.chain.tokenId}`);
  expect(
    same(s.contract, bundle.chain.contract),
    `contract ${String(s.contract)} is not ${bundle.chain.contract}`,
  );
  expect(s.chainId === bundle.chain.chainId, `chainId ${String(s.chainId)} is not ${bundle.chain.chainId}`);
  expect(
    same(s.metadataHash, bundle.metadata.hash),
    `metadataHash ${String(s.metadataHash)} is not ${bundle.metadata.hash}`,
  );
  expect(
    s.name === bundle.metadata.name,
    `name ${JSON.stringify(s.name)} is not ${JSON.stringify(bundle.metadata.name)}`,
  );
  expect(
    (s.image ?? null) === bundle.metadata.imageUrl,
    `image ${String(s.image ?? null)} is not ${String(bundle.metadata.imageUrl)}`,
  );
  expect(
    canonicalJson(s.metadata) === canonicalJson(bundle.metadata.metadata),
    'metadata differs from the bundle’s',
  );
  if (s.imageSha256 !== undefined && bundle.image) {
    expect(
      same(s.imageSha256, bundle.image.sha256),
      `imageSha256 ${s.imageSha256} is not ${bundle.image.sha256}`,
    );
  }
  return problems.length
    ? {
        name: 'credential_matches_bundle',
        result: 'failed',
        detail: `The signed credential disagrees with the bundle: ${problems.join('; ')}.`,
      }
    : {
        name: 'credential_matches_bundle',
        result: 'passed',
        detail: `The credential certifies this certificate: token ${bundle.chain.tokenId} of ${bundle.chain.contract} on chain ${bundle.chain.chainId}.`,
      };
}

/** The hash recomputed from the bundle's metadata preimage (and the hash the chain is asked about). */
export function recomputedHash(bundle: ProofBundle): string {
  const { name, imageUrl, metadata } = bundle.metadata;
  return metadataHashOf(name, imageUrl, metadata);
}

export function checkMetadataHash(bundle: ProofBundle, recomputed: string): Check {
  const signed = bundle.credential.credentialSubject.metadataHash;
  if (!same(recomputed, bundle.metadata.hash) || !same(recomputed, signed)) {
    return {
      name: 'metadata_hash',
      result: 'failed',
      detail: `The metadata hashes to ${recomputed}, but the bundle says ${bundle.metadata.hash} and the credential ${String(signed)}: it was changed.`,
    };
  }
  return {
    name: 'metadata_hash',
    result: 'passed',
    detail: `The metadata hashes to ${recomputed}, the signed hash.`,
  };
}

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

export async function checkImage(bundle: ProofBundle, image: Uint8Array | undefined): Promise<Check> {
  const name = 'image';
  if (!image) return { name, result: 'skipped', detail: 'No image file given.' };
  const certified = bundle.image?.sha256 ?? bundle.credential.credentialSubject.imageSha256;
  const actual = hex(await crypto.subtle.digest('SHA-256', image as Uint8Array<ArrayBuffer>));
  if (!certified)
    return {
      name,
      result: 'unknown',
      detail: `The certificate records no image hash (the file's sha256 is ${actual}).`,
    };
  return same(actual, certified)
    ? { name, result: 'passed', detail: `The image file's sha256 is the certified ${certified}.` }
    : {
        name,
        result: 'failed',
        detail: `The image file's sha256 is ${actual}, not the certified ${certified}: it is another image.`,
      };
}
