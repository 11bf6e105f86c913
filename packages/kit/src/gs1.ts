// GS1 identifiers as Hallmark carries them (docs/digital-link.md): the GTIN (AI 01) with its
// mod-10 check digit, the serial number (AI 21, GS1 character set 82) and the GS1 Digital Link
// URI path `/01/<gtin14>/21/<serial>` with its percent-encoding. Pure: the certificates domain
// (which decides) and bulk's CSV row checks (which report a bad row early) share one rule.
// Sources: GS1 General Specifications §3.2 (AI 01, AI 21), §7.9 (check digit), §7.11 (CSET 82);
// GS1 Digital Link URI Syntax 1.x (path form, qualifier order 22/10/21, percent-encoding).

/** GS1 AI encodable character set 82: the characters a serial or lot may hold. */
const CSET82 = /^[!"%&'()*+,\-./0-9:;<=>?A-Z_a-z]+$/;
export const MAX_SERIAL_LENGTH = 20;

/** The GS1 mod-10 check digit of `body` (the digits before the check digit). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  // Weights 3,1,3,… from the rightmost digit of the body (GS1 GenSpecs §7.9.1).
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * A GTIN-8, -12, -13 or -14 (digits only, correct check digit) as the 14 digits Digital Link
 * paths and Hallmark's records use (left-padded with zeros); or why it is not one.
 */
export function normaliseGtin(raw: string): { gtin: string } | { problem: string } {
  if (!/^[0-9]+$/.test(raw)) return { problem: 'must be digits only (a GTIN-8, -12, -13 or -14)' };
  if (![8, 12, 13, 14].includes(raw.length))
    return { problem: `has ${raw.length} digits; a GTIN has 8, 12, 13 or 14` };
  const check = gs1CheckDigit(raw.slice(0, -1));
  if (check !== Number(raw[raw.length - 1]))
    return { problem: `has a wrong check digit (expected ${check} for ${raw.slice(0, -1)})` };
  return { gtin: raw.padStart(14, '0') };
}

/** Why `value` is not a GS1 serial (AI 21: 1–20 characters of CSET 82), or null. */
export function serialProblem(value: string): string | null {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_SERIAL_LENGTH) return `is longer than ${MAX_SERIAL_LENGTH} characters`;
  if (!CSET82.test(value))
    return 'may hold only GS1 character set 82 (letters A–Z a–z, digits and !"%&\'()*+,-./:;<=>?_)';
  return null;
}

/**
 * One Digital Link path segment: every character outside RFC 3986's unreserved set
 * (A–Z a–z 0–9 - . _ ~) percent-encoded, so `/`, `%`, `?`, `#`, `&`… of a serial never read as
 * URI syntax. Decoding gives the value back.
 */
export function encodeDigitalLinkSegment(value: string): string {
  return value.replace(
    /[^A-Za-z0-9\-._~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** `/01/<gtin14>/21/<serial, encoded>`: the path of an item's Digital Link URI. */
export function digitalLinkPath(gtin14: string, serial: string): string {
  return `/01/${gtin14}/21/${encodeDigitalLinkSegment(serial)}`;
}
