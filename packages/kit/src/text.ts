// Control characters in customer text. PostgreSQL refuses NUL in `text` and `jsonb` (a 500
// if it ever reached a query), and the other C0 controls have no business in names, codes
// or descriptions. Tab, line feed and carriage return stay allowed: free text (descriptions,
// template bodies) legitimately holds them. A lone surrogate (a UTF-16 half with no partner,
// which JSON's `\ud800` escape can produce) is no text either: jsonb refuses it (a 500), and
// it cannot be written as UTF-8 or into a gRPC header. Both are refused alike. Pure.

/**
 * C0 controls except tab (U+0009), line feed (U+000A) and carriage return (U+000D), and an
 * unpaired surrogate: a high one not followed by a low one, or a low one not after a high one.
 */
export const FORBIDDEN_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `s` holds a control character or a lone surrogate, refused in customer text. */
export const hasForbiddenControl = (s: string): boolean => FORBIDDEN_CONTROL.test(s);

/** The message every surface gives for such a value. */
export const controlCharacterMessage = (field: string): string =>
  `${field} contains a control character (NUL or another C0 control other than tab, line feed ` +
  'and carriage return) or an unpaired surrogate (not valid Unicode text); remove it.';

/** `s` with its control characters shown as `\u00XX`, for quoting a refused value back. */
export const showControls = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u001F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

// Names shown to other people (an issuer's display name on a public verify page): besides
// the controls above, every format character (Unicode category Cf) is refused. That covers
// the bidi controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), which reorder what a
// reader sees ("moc.knab" shown as "bank.com"), and the invisible ones (U+200B–U+200D,
// U+2060, U+FEFF, soft hyphen…), which make two names that look alike compare different.
// A property escape, not a hand list, so characters a later Unicode adds are refused too.
const INVISIBLE_OR_BIDI = /\p{Cf}/u;

/** True when `s` holds a bidi control or another invisible format character (Cf). */
export const hasInvisibleOrBidi = (s: string): boolean => INVISIBLE_OR_BIDI.test(s);

/** The message every surface gives for such a name. */
export const invisibleCharacterMessage = (field: string): string =>
  `${field} contains an invisible or text-direction character (such as U+202E or a zero-width ` +
  'space); remove it.';

// A practical address check: one @, no spaces, quotes, angle brackets or other characters a
// mail header would treat specially, a dot in the domain and a top-level label of two or more.
const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]{2,}$/;
export const MAX_EMAIL_LENGTH = 254;

/** True when `s` (already trimmed) is an e-mail address by the practical rule above. */
export const isEmailAddress = (s: string): boolean =>
  s.length <= MAX_EMAIL_LENGTH && EMAIL_RE.test(s) && !hasForbiddenControl(s) && !hasInvisibleOrBidi(s);
