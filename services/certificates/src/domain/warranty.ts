// The warranty of a certificate as every reader sees it (spec › Resources › Certificate ›
// Warranty metadata; States › Warranty status): the stored fields and the status derived from
// them. Shared by the certificate records (metadata.warranty on every read) and the warranty
// slice that sets it (src/warranty/). Pure: no I/O.

export const WARRANTY_TYPES = [
  'Manufacturer',
  'Extended',
  'Limited',
  'Full Coverage',
  'Parts Only',
  'Labor Only',
] as const;
export type WarrantyType = (typeof WARRANTY_TYPES)[number];

export type WarrantyStatus = 'future' | 'active' | 'expired';

/** The stored warranty (metadata.warranty without its derived status). */
export interface Warranty {
  /** Years as a number (1, 2, 3, 5, 10) or 'Lifetime'. */
  period: number | 'Lifetime';
  type: WarrantyType;
  startDate: string;
  endDate: string;
  coverage: string;
  exclusions?: string;
  claimProcess: string;
  contactInfo: string;
  termsUrl?: string;
}

/**
 * Derived status at `now` (UTC calendar days, both ends inclusive): before the start
 * `future`, from start to end `active`, after the end `expired`.
 */
export function warrantyStatus(
  w: Pick<Warranty, 'startDate' | 'endDate'>,
  now: Date = new Date(),
): WarrantyStatus {
  const today = now.toISOString().slice(0, 10);
  if (today < w.startDate) return 'future';
  if (today > w.endDate) return 'expired';
  return 'active';
}

/** The warranty as readers see it: stored fields plus the derived status. */
export function warrantyView(w: Warranty, now: Date = new Date()): Warranty & { status: WarrantyStatus } {
  return { ...w, status: warrantyStatus(w, now) };
}
