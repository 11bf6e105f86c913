// The metadata hash Hallmark mints: the leaf preimage of a certificate in its batch's Merkle
// tree. A word-for-word re-implementation of the certificates service's `canonicalJson` and
// `metadataHashOf` (services/certificates/src/domain/certificate.ts): this package must not
// depend on the service, and test/canonical.test.ts holds both to the same fixed vectors.
import { id as keccakUtf8 } from 'ethers';

/** JSON with object keys sorted at every level (UTF-16 code unit order), undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** keccak256 of the UTF-8 canonical JSON of {name, imageUrl, metadata}, as 0x-prefixed hex. */
export function metadataHashOf(
  name: string,
  imageUrl: string | null,
  metadata: Record<string, unknown>,
): string {
  return keccakUtf8(canonicalJson({ name, imageUrl, metadata }));
}
