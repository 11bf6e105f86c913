// The install's rules: which shop domains are accepted, the scopes asked for, and how the
// platform's signed callback query is checked (constant time, fresh timestamp).
import { parseApiKey } from '@hallmark/kit/apikey';
import { constantTimeEqual, hmacSha256 } from '@hallmark/kit/crypto';
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';

export const SCOPES = ['read_orders', 'write_fulfillments', 'read_products'];

const LABEL = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * A shop domain is one DNS label followed by the platform's store suffix (e.g.
 * `my-shop.myshopify.com`): anything else (ports, paths, other hosts) is refused, so the
 * Admin URL built from it can only point at the platform.
 */
export function parseShop(raw: unknown, suffix: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalidParam('shop', 'shop is required.');
  const shop = raw.trim().toLowerCase();
  const label = shop.endsWith(suffix) ? shop.slice(0, -suffix.length) : '';
  if (!LABEL.test(label)) throw invalidParam('shop', `shop must be a store domain like my-shop${suffix}.`);
  return shop;
}

/** The message the callback's `hmac` signs: the other parameters, sorted, `k=v&…`. */
export function callbackMessage(query: Record<string, string>): string {
  return Object.keys(query)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${k}=${query[k]}`)
    .join('&');
}

const refused = (why: string) =>
  new HallmarkError('invalid_token', { message: `The install callback was refused: ${why}.` });

/** Throws unless the query is signed with the app secret and its timestamp is fresh. */
export function verifyCallback(
  query: Record<string, string>,
  secret: string,
  nowS: number,
  maxAgeS: number,
): void {
  const hmac = query.hmac ?? '';
  if (!/^[0-9a-f]{64}$/i.test(hmac)) throw refused('missing or malformed signature');
  if (!constantTimeEqual(hmacSha256(secret, callbackMessage(query), 'hex'), hmac.toLowerCase()))
    throw refused('bad signature');
  const ts = Number(query.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowS - ts) > maxAgeS) throw refused('stale timestamp');
  for (const k of ['code', 'shop', 'state']) if (!query[k]) throw refused(`missing ${k}`);
}

export const WEBHOOK_SECRET = /^[0-9a-f]{64}$/;

/** Supplied credentials at authorize: all optional, but a key needs its id and vice versa. */
export function parseSupplied(s: { apiKeyId?: string; apiKey?: string; webhookSecret?: string }) {
  if (!!s.apiKeyId !== !!s.apiKey)
    throw invalidParam(s.apiKeyId ? 'apiKey' : 'apiKeyId', 'apiKeyId and apiKey are given together.');
  if (s.apiKeyId && !/^apikey_[A-Za-z0-9]{1,64}$/.test(s.apiKeyId))
    throw invalidParam('apiKeyId', 'apiKeyId is an apikey_ id.');
  if (s.apiKey && !parseApiKey(s.apiKey)) throw invalidParam('apiKey', 'apiKey is not an API key.');
  if (s.webhookSecret && !WEBHOOK_SECRET.test(s.webhookSecret))
    throw invalidParam('webhookSecret', 'webhookSecret is 64 hexadecimal characters.');
  return s.apiKeyId || s.webhookSecret ? s : null;
}
