// API key secrets as the keys service issues and stores them. The format itself
// (`<prefix><32 random base62><6 base62 checksum>`, refusable without a lookup) lives in
// the kit (`@hallmark/kit` apikey.ts), so the gateway that checks secrets and this
// service that issues them cannot drift apart. This file adds the service's side:
// which prefix a key type gets, the hash that is stored, and the non-secret display form.
import {
  API_KEY_PREFIXES,
  displayPrefix as kitDisplayPrefix,
  generateApiKey,
  parseApiKey,
} from '@hallmark/kit/apikey';
import { sha256Hex } from '@hallmark/kit/crypto';
import type { KeyType } from './keys.js';

export type SecretPrefix = (typeof API_KEY_PREFIXES)[KeyType];

/** Longest well-formed secret (`pk_restricted_` + 32 + 6); longer input is refused unread. */
export const SECRET_MAX_LENGTH = 'pk_restricted_'.length + 32 + 6;

/** A fresh secret for a key of `type` in its mode. Returned to the caller once; never stored. */
export const generateSecret = (type: KeyType, livemode: boolean): string =>
  generateApiKey(livemode ? type : 'test');

export type ParsedSecret = { ok: true; prefix: SecretPrefix; livemode: boolean } | { ok: false };

/** Shape and checksum check: `ok: false` means "answer invalid_api_key, no lookup needed". */
export function parseSecret(secret: string): ParsedSecret {
  if (typeof secret !== 'string' || secret.length > SECRET_MAX_LENGTH) return { ok: false };
  const parsed = parseApiKey(secret);
  if (!parsed) return { ok: false };
  const prefix = parsed.prefix as SecretPrefix;
  return { ok: true, prefix, livemode: prefix !== API_KEY_PREFIXES.test };
}

/** What the database stores and VerifyKey takes: SHA-256 hex of the whole secret. */
export const hashSecret = (secret: string): string => sha256Hex(secret);

/** The non-secret form kept beside the hash: the prefix and 4 body characters (`pk_live_a1B2`). */
export const displayPrefix = (secret: string): string => kitDisplayPrefix(secret);
