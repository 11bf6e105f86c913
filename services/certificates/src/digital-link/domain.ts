// GS1 Digital Link resolution, the pure part (docs/digital-link.md): which item a request path
// names, and the checks a certificate's GTIN, serial and passport link pass at mint. Pure.
import { invalidParam } from '@hallmark/kit/errors';
import { digitalLinkPath, normaliseGtin, serialProblem } from '@hallmark/kit/gs1';

/** The item a Digital Link path names: a GTIN (14 digits) and, for an item, its serial. */
export interface DigitalLinkKey {
  gtin: string;
  /** Null on a GTIN-level (or lot-level) path. */
  serial: string | null;
}

/**
 * The key qualifiers of AI 01 this resolver reads, in the order GS1 Digital Link URI Syntax
 * fixes for them: consumer product variant (22), batch/lot (10), serial (21). Each is 1–20
 * CSET 82 characters. Lot and variant are checked and accepted, then ignored: a serial alone
 * names a Hallmark certificate.
 */
const QUALIFIERS = ['22', '10', '21'] as const;
const QUALIFIER_NAMES: Record<string, string> = { '22': 'variant', '10': 'lot', '21': 'serial' };

function decodeSegment(segment: string, param: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidParam(param, `The ${param} '${segment.slice(0, 40)}' is not valid percent-encoding.`);
  }
}

/**
 * Reads `<gtin>[/22/<cpv>][/10/<lot>][/21/<serial>]` (what follows `/01/`, still percent-encoded;
 * one trailing `/` tolerated). Bad syntax — a GTIN that is not 8/12/13/14 digits with its check
 * digit, an AI that is not a qualifier of 01, qualifiers out of order or repeated, a value
 * outside CSET 82 — is parameter_invalid (400), naming what is wrong.
 */
export function parseDigitalLinkPath(rest: string): DigitalLinkKey {
  const segments = rest.replace(/\/$/, '').split('/');
  const gtinRaw = decodeSegment(segments[0] ?? '', 'gtin');
  const gtin = normaliseGtin(gtinRaw);
  if ('problem' in gtin) throw invalidParam('gtin', `The GTIN '${gtinRaw.slice(0, 20)}' ${gtin.problem}.`);
  const pairs = segments.slice(1);
  if (pairs.length % 2 !== 0)
    throw invalidParam('path', 'A Digital Link path after the GTIN is pairs of /<AI>/<value>.');
  let serial: string | null = null;
  let last = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const ai = pairs[i]!;
    const at = QUALIFIERS.indexOf(ai as (typeof QUALIFIERS)[number]);
    if (at < 0)
      throw invalidParam(
        'path',
        `'${ai.slice(0, 10)}' is not a key qualifier of a GTIN (AI 01): use 22 (variant), 10 (lot) or 21 (serial).`,
      );
    if (at <= last)
      throw invalidParam('path', 'Key qualifiers of a GTIN come once each, in the order 22, 10, 21.');
    last = at;
    const param = QUALIFIER_NAMES[ai]!;
    const value = decodeSegment(pairs[i + 1]!, param);
    const problem = serialProblem(value);
    if (problem) throw invalidParam(param, `The ${param} (AI ${ai}) ${problem}.`);
    if (ai === '21') serial = value;
  }
  return { gtin: gtin.gtin, serial };
}

/** A certificate's GTIN and serial at mint: both or neither; the GTIN normalised to 14 digits. */
export function parseItemIdentity(
  raw: { gtin?: string; serial?: string },
  param: (field: string) => string,
): { gtin: string; serial: string } | null {
  const gtinRaw = raw.gtin?.trim() ?? '';
  const serial = raw.serial ?? '';
  if (gtinRaw === '' && serial === '') return null;
  if (gtinRaw === '') throw invalidParam(param('gtin'), 'A serial needs a GTIN: give both or neither.');
  if (serial === '') throw invalidParam(param('serial'), 'A GTIN needs a serial: give both or neither.');
  const gtin = normaliseGtin(gtinRaw);
  if ('problem' in gtin) throw invalidParam(param('gtin'), `gtin ${gtin.problem}.`);
  const problem = serialProblem(serial);
  if (problem) throw invalidParam(param('serial'), `serial ${problem}.`);
  return { gtin: gtin.gtin, serial };
}

/** Longest product passport link accepted in metadata. */
const MAX_PASSPORT_URL = 2048;

/**
 * The product passport link of a certificate's metadata (`passportUrl`): an https URL without
 * credentials, or absent. The resolver lists it (gs1:pip) and the credential carries it.
 */
export function passportUrlProblem(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > MAX_PASSPORT_URL)
    return `metadata.passportUrl must be an https URL of at most ${MAX_PASSPORT_URL} characters.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'metadata.passportUrl must be an https URL.';
  }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password)
    return 'metadata.passportUrl must be an https URL without credentials.';
  return null;
}

export { digitalLinkPath };
