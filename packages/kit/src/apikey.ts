// API key secrets: `<prefix><32 random base62><6 base62 checksum>`. The checksum lets the
// gateway refuse a malformed or mistyped key without any lookup; only a SHA-256 of the
// whole secret is ever stored.
import { createHash } from 'node:crypto';
import { randomBase62 } from './ids.js';

export const API_KEY_PREFIXES = {
  production: 'pk_live_',
  test: 'pk_test_',
  restricted: 'pk_restricted_',
  enterprise: 'pk_live_',
} as const;

export type ApiKeyType = keyof typeof API_KEY_PREFIXES;

const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(
  `^(pk_live_|pk_test_|pk_restricted_)([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function checksum(prefix: string, body: string): string {
  let n = createHash('sha256')
    .update(prefix + body)
    .digest()
    .readUInt32BE(0);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateApiKey(type: ApiKeyType): string {
  const prefix = API_KEY_PREFIXES[type];
  const body = randomBase62(BODY_LENGTH);
  return prefix + body + checksum(prefix, body);
}

/** The prefix of a well-formed key whose checksum holds, else null. */
export function parseApiKey(secret: string): { prefix: string } | null {
  const m = SHAPE.exec(secret);
  if (!m) return null;
  const [, prefix, body, sum] = m;
  return checksum(prefix!, body!) === sum ? { prefix: prefix! } : null;
}

/** What may be shown of a key after creation: the prefix and the first 4 body characters. */
export function displayPrefix(secret: string): string {
  const m = SHAPE.exec(secret);
  return m ? m[1]! + m[2]!.slice(0, 4) : '';
}
