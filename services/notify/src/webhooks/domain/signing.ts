// Signatures, computed at each attempt (spec › Authentication 10, 11; Standard Webhooks).
// Pure: the time and the secrets come in as arguments.
//
// Versioned endpoints get both schemes so receivers using either verifier succeed:
//   X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>[,v1=<hex>…]
//     keyed with the secret string itself (whsec_… as UTF-8), Stripe's convention;
//   webhook-id / webhook-timestamp / webhook-signature: v1,<base64 HMAC-SHA256(key,
//     "<id>.<t>.<body>")>[ v1,<base64>…] keyed with the base64-decoded part after whsec_
//     (Standard Webhooks).
// During a rotation overlap every header carries one signature per live secret, newest first.
// Enterprise subscriptions: X-Webhook-Signature: <hex HMAC-SHA256(secret, body)>.
import { hmacSha256 } from '@hallmark/kit/crypto';
import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: whsec_ + base64 of 32 random bytes (a Standard Webhooks key). */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The Standard Webhooks key of a whsec_ secret (its base64 part, decoded). */
export function standardKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export interface SignInput {
  /** The event id: `webhook-id`, the same across attempts. */
  id: string;
  body: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** Live secrets, newest first (two during a rotation overlap). */
  secrets: string[];
}

export function versionedHeaders({ id, body, timestamp, secrets }: SignInput): Record<string, string> {
  const t = String(timestamp);
  const stripe = secrets.map((s) => `v1=${hmacSha256(s, `${t}.${body}`, 'hex')}`);
  const standard = secrets.map((s) => `v1,${hmacSha256(standardKey(s), `${id}.${t}.${body}`, 'base64')}`);
  return {
    'x-service-signature': [`t=${t}`, ...stripe].join(','),
    'webhook-id': id,
    'webhook-timestamp': t,
    'webhook-signature': standard.join(' '),
  };
}

export function enterpriseHeaders(input: {
  id: string;
  event: string;
  body: string;
  at: Date;
  secret: string;
}): Record<string, string> {
  return {
    'x-webhook-signature': hmacSha256(input.secret, input.body, 'hex'),
    'x-webhook-event': input.event,
    'x-webhook-timestamp': input.at.toISOString(),
    'x-webhook-id': input.id,
  };
}

/**
 * Every header of one attempt, signed now with the live secrets: a versioned type as an
 * endpoint gets it, an enterprise type as a subscription does; plus the delivery's own.
 */
export function attemptHeaders(
  c: { id: string; attempt: number; eventId: string; eventType: string; body: string; secrets: string[] },
  scheme: 'versioned' | 'enterprise',
  at: Date,
): Record<string, string> {
  const common = { 'x-hallmark-delivery': c.id, 'x-hallmark-attempt': String(c.attempt) };
  if (scheme === 'versioned')
    return {
      ...versionedHeaders({
        id: c.eventId,
        body: c.body,
        timestamp: Math.floor(at.getTime() / 1000),
        secrets: c.secrets,
      }),
      ...common,
    };
  return {
    ...enterpriseHeaders({ id: c.eventId, event: c.eventType, body: c.body, at, secret: c.secrets[0]! }),
    ...common,
  };
}
