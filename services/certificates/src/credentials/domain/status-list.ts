// Bitstring Status Lists (W3C Bitstring Status List v1.0): one list per enterprise, mode and
// purpose (revocation) chunk of 131,072 entries. A credential's index is allocated when it is
// issued; a burn sets its bit. Suspension is not used: a voided warranty is not a revocation
// of the certificate (docs/credentials.md › Status).
import { createCredential, BitstringStatusList } from '@digitalbazaar/vc-bitstring-status-list';
import { isoSeconds, statusListUrl } from './credential.js';

/** Entries per list: the spec's minimum size (16 KB), for herd privacy. */
export const STATUS_LIST_SIZE = 131_072;
export const STATUS_LIST_BYTES = STATUS_LIST_SIZE / 8;
export const STATUS_PURPOSE = 'revocation';

/**
 * PostgreSQL's `set_bit(bytea, n)` numbers bits from the least significant of each byte; a
 * status list's index 0 is the most significant bit of the first byte (the spec's
 * left-to-right order). This is the `n` of entry `index`.
 */
export function pgBitOf(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= STATUS_LIST_SIZE)
    throw new RangeError(`status list index ${index} is out of range`);
  return Math.floor(index / 8) * 8 + (7 - (index % 8));
}

/** The unsigned BitstringStatusListCredential of a list's bits, issued by `issuerDid`. */
export async function buildStatusListCredential(opts: {
  publicUrl: string;
  listId: string;
  issuerDid: string;
  bits: Uint8Array;
  validFrom: Date;
}): Promise<Record<string, unknown>> {
  const list = new BitstringStatusList({ buffer: opts.bits });
  const credential = await createCredential({
    id: statusListUrl(opts.publicUrl, opts.listId),
    list,
    statusPurpose: STATUS_PURPOSE,
  });
  return { ...credential, issuer: opts.issuerDid, validFrom: isoSeconds(opts.validFrom) };
}
