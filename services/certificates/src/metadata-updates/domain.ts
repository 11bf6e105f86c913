// ERC-4906 metadata updates, pure rules: why a certificate's metadata changed (the reasons other
// slices queue), and how queued changes are coalesced into the fewest inclusive token id ranges
// one announcement carries (MetadataUpdate for a range of one id, BatchMetadataUpdate otherwise).
import type { TokenRange } from '../chain/contract.js';

/**
 * Why what tokenURI's metadata answers changed. The owner is not one: marketplaces read owners
 * from Transfer events. New slices add theirs here (stolen flag, service records, tags, …).
 */
export const METADATA_UPDATE_REASONS = [
  'warranty_set',
  'warranty_changed',
  'reported_stolen',
  'recovered',
  'service_record',
  'tag_bound',
  'tag_revoked',
  'metadata_changed',
] as const;
export type MetadataUpdateReason = (typeof METADATA_UPDATE_REASONS)[number];

/** Queued rows one announcement takes at most (≈ 2.5k gas per range: ≤ ~1.3M gas). */
export const MAX_UPDATES_PER_ANNOUNCEMENT = 500;

/**
 * The sorted union of `ranges` with overlapping and adjacent ranges merged: [3,3], [4,6], [9,9]
 * → [3,6], [9,9]. Never widens a range past what was queued (a marketplace refreshes exactly the
 * tokens that changed).
 */
export function coalesce(ranges: readonly TokenRange[]): TokenRange[] {
  const sorted = [...ranges].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const out: TokenRange[] = [];
  for (const r of sorted) {
    if (r.from < 1n || r.to < r.from) throw new Error(`not a token range: ${r.from}..${r.to}`);
    const last = out[out.length - 1];
    if (last && r.from <= last.to + 1n) {
      if (r.to > last.to) last.to = r.to;
    } else {
      out.push({ from: r.from, to: r.to });
    }
  }
  return out;
}

/** Ranges as stored (jsonb: decimal strings, exact beyond 2^53). */
export const rangesToJson = (ranges: readonly TokenRange[]): [string, string][] =>
  ranges.map((r) => [r.from.toString(), r.to.toString()]);

export const rangesFromJson = (json: readonly [string, string][]): TokenRange[] =>
  json.map(([from, to]) => ({ from: BigInt(from), to: BigInt(to) }));
