// Strict ISO 8601 instants: `YYYY-MM-DD` (UTC midnight) or a date-time with seconds
// optional and a `Z` or `±hh:mm` offset. Dates that do not exist (Feb 30) are refused,
// unlike `Date.parse`, which rolls them over.
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

export function parseIsoInstant(value: string): Date | null {
  const m = ISO.exec(value);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', , oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day)
    return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** ISO text of a time, or '' (the proto's "none") for null. */
export const isoOrEmpty = (d: Date | null | undefined): string => (d ? d.toISOString() : '');
