// Field rules shared by the CSV form and the JSON (order) form, so one certificate input is
// judged the same way whichever form brought it. Pure. Each check returns the problem as a
// user-facing sentence fragment, or null when the value is fine.

export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_SHORT_TEXT_LENGTH = 200;
export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_EXPIRY_DAYS = 3650;
export const DEFAULT_EXPIRY_DAYS = 30;

// The same rule as notify's recipients.ts, so every address accepted here can be mailed.
const EMAIL =
  /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function emailProblem(value: string): string | null {
  if (value.length > MAX_EMAIL_LENGTH || !EMAIL.test(value)) return 'is not a valid e-mail address';
  return null;
}

/** An absolute URL with one of `schemes`, a host, no credentials, bounded length. */
export function urlProblem(value: string, schemes: readonly string[] = ['https:']): string | null {
  const must = schemes.length === 1 ? 'an HTTPS URL' : 'an HTTP or HTTPS URL';
  if (value.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be ${must}`;
  }
  if (!schemes.includes(url.protocol)) return `must be ${must}`;
  if (!url.hostname) return 'has no host';
  if (url.username || url.password) return 'must not contain credentials';
  return null;
}

export function lengthProblem(value: string, max: number): string | null {
  return value.length > max ? `is longer than ${max} characters` : null;
}

/** Blank means the default (30); otherwise whole days from 1 to 3650, digits only. */
export function parseExpiryDays(raw: string): { value: number } | { problem: string } {
  if (raw === '') return { value: DEFAULT_EXPIRY_DAYS };
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_EXPIRY_DAYS)
    return { problem: `must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}` };
  return { value: n };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** `YYYY-MM-DD` or an ISO 8601 date-time with a zone; the calendar date must exist. */
export function isoDateProblem(value: string): string | null {
  const m = ISO_DATE.exec(value);
  if (!m) return 'must be an ISO 8601 date (YYYY-MM-DD) or date-time';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return 'is not a real calendar date';
  if (Number.isNaN(Date.parse(value))) return 'is not a valid date-time';
  return null;
}
