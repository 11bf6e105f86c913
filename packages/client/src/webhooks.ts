// Signature checks for webhook receivers, over the raw request body (never re-serialised
// JSON): the versioned surface's `X-Service-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256 of
// "<t>.<body>" keyed with the secret string, spec › Authentication 10), the enterprise
// subscriptions' `X-Webhook-Signature: <hex>` (HMAC-SHA256 of the body, 11), and Standard
// Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`, keyed with
// the base64 part of a whsec_ secret). Comparisons are constant time; timestamps more than
// 5 minutes from now are refused. During a secret rotation a header carries one signature per
// live secret: any one matching is enough.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SEC = 300;

export type RawBody = string | Uint8Array;
export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : headers[key];
  return Array.isArray(v) ? v[0] : v;
}

const bytes = (b: RawBody) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b));

function equal(a: string, b: string, encoding: 'hex' | 'base64'): boolean {
  const x = Buffer.from(a, encoding);
  const y = Buffer.from(b, encoding);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

function checkTime(t: number, toleranceSec: number, nowSec: number): void {
  if (!Number.isFinite(t)) throw new WebhookVerificationError('The signature has no valid timestamp.');
  if (Math.abs(nowSec - t) > toleranceSec) {
    throw new WebhookVerificationError('The signature timestamp is outside the tolerance.');
  }
}

export interface VerifyOptions {
  /** Seconds a timestamp may be away from now (default 300). */
  toleranceSec?: number;
  /** Unix seconds to compare against (tests). */
  nowSec?: number;
}

/** Verifies `X-Service-Signature` (versioned endpoints); throws WebhookVerificationError. */
export function verifyServiceSignature(
  body: RawBody,
  signatureHeader: string | undefined,
  secret: string,
  opts: VerifyOptions = {},
): void {
  if (!signatureHeader) throw new WebhookVerificationError('X-Service-Signature is missing.');
  const parts = signatureHeader.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  checkTime(t, opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC, opts.nowSec ?? Date.now() / 1000);
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), bytes(body)]))
    .digest('hex');
  const ok = parts.some(([k, v]) => k === 'v1' && v !== undefined && equal(v, expected, 'hex'));
  if (!ok) throw new WebhookVerificationError('No X-Service-Signature signature matches the secret.');
}

/** Verifies an enterprise subscription's `X-Webhook-Signature`; throws WebhookVerificationError. */
export function verifyEnterpriseSignature(
  body: RawBody,
  signatureHeader: string | undefined,
  secret: string,
): void {
  if (!signatureHeader) throw new WebhookVerificationError('X-Webhook-Signature is missing.');
  const expected = createHmac('sha256', secret).update(bytes(body)).digest('hex');
  if (!equal(signatureHeader.trim(), expected, 'hex')) {
    throw new WebhookVerificationError('X-Webhook-Signature does not match the secret.');
  }
}

/** Verifies Standard Webhooks headers; throws WebhookVerificationError. */
export function verifyStandardWebhook(
  body: RawBody,
  headers: HeaderBag,
  secret: string,
  opts: VerifyOptions = {},
) {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs) throw new WebhookVerificationError('Standard Webhooks headers are missing.');
  checkTime(Number(ts), opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC, opts.nowSec ?? Date.now() / 1000);
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), bytes(body)]))
    .digest('base64');
  const ok = sigs.split(' ').some((s) => {
    const [version, sig] = s.split(',');
    return version === 'v1' && sig !== undefined && equal(sig, expected, 'base64');
  });
  if (!ok) throw new WebhookVerificationError('No webhook-signature matches the secret.');
}

/**
 * Verifies whichever scheme the request carries (X-Service-Signature, Standard Webhooks, or
 * X-Webhook-Signature) and answers the parsed JSON body.
 */
export function verifyWebhook<T = unknown>(
  body: RawBody,
  headers: HeaderBag,
  secret: string,
  opts: VerifyOptions = {},
): T {
  const service = header(headers, 'x-service-signature');
  if (service) verifyServiceSignature(body, service, secret, opts);
  else if (header(headers, 'webhook-signature')) verifyStandardWebhook(body, headers, secret, opts);
  else verifyEnterpriseSignature(body, header(headers, 'x-webhook-signature'), secret);
  return JSON.parse(bytes(body).toString('utf8')) as T;
}
