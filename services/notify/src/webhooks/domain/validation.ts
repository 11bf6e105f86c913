// Input rules of endpoints and subscriptions (spec › Webhook endpoint, Enterprise webhook
// subscription). Pure; the outbound guard (DNS) runs in rpc.ts after these pass.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import {
  ENTERPRISE_EVENT_TYPES,
  isEnterpriseType,
  isVersionedType,
  VERSIONED_EVENT_TYPES,
  type EnterpriseEventType,
  type VersionedEventType,
} from './events.js';
import { SECRET_PREFIX } from './signing.js';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_OVERLAP_S = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_S = 24 * 3600;

export type EndpointStatus = 'active' | 'disabled' | 'failed';

/** Syntax only: https, a host, no credentials, bounded length. */
export function parseUrl(raw: string | undefined, param = 'url'): string {
  if (!raw) throw missingParam(param);
  if (raw.length > MAX_URL_LENGTH)
    throw invalidParam(param, `Invalid ${param}: longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParam(param, `Invalid ${param}: not a URL.`);
  }
  if (url.protocol !== 'https:') throw invalidParam(param, `Invalid ${param}: must be an HTTPS URL.`);
  if (url.username || url.password)
    throw invalidParam(param, `Invalid ${param}: credentials in the URL are not allowed.`);
  return url.toString();
}

function parseEventList<T extends string>(
  events: string[] | undefined,
  allowed: readonly T[],
  isAllowed: (t: string) => t is T,
  param = 'events',
): T[] {
  if (!events || events.length === 0) throw missingParam(param);
  const out: T[] = [];
  for (const [i, e] of events.entries()) {
    if (!isAllowed(e))
      throw new HallmarkError('parameter_invalid', {
        param: `${param}[${i}]`,
        message: `Unknown event type '${e}'. Allowed: ${allowed.join(', ')}.`,
      });
    if (!out.includes(e)) out.push(e);
  }
  return out;
}

export const parseVersionedEvents = (events: string[] | undefined): VersionedEventType[] =>
  parseEventList(events, VERSIONED_EVENT_TYPES, isVersionedType);

export const parseEnterpriseEvents = (events: string[] | undefined): EnterpriseEventType[] =>
  parseEventList(events, ENTERPRISE_EVENT_TYPES, isEnterpriseType);

/** A listen session's filter: versioned and enterprise types; none given means every type. */
export function parseListenEvents(events: string[] | undefined): string[] {
  if (!events || events.length === 0) return [];
  const allowed = [...VERSIONED_EVENT_TYPES, ...ENTERPRISE_EVENT_TYPES];
  return parseEventList(events, allowed, (t): t is string => isVersionedType(t) || isEnterpriseType(t));
}

/** A client-chosen endpoint secret: whsec_ + base64 of 24..64 bytes (a Standard Webhooks key). */
export function parseEndpointSecret(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined;
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : null;
  const bytes = b64 !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64').length : 0;
  if (bytes < 24 || bytes > 64)
    throw invalidParam('secret', "Invalid secret: expected 'whsec_' followed by base64 of 24 to 64 bytes.");
  return secret;
}

/** A client-chosen subscription secret: 64 hex characters (spec). */
export function parseSubscriptionSecret(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(secret))
    throw invalidParam('secret', 'Invalid secret: expected 64 hexadecimal characters.');
  return secret;
}

export function parseDescription(d: string | undefined): string | undefined {
  if (d !== undefined && d.length > MAX_DESCRIPTION_LENGTH)
    throw invalidParam(
      'description',
      `Invalid description: longer than ${MAX_DESCRIPTION_LENGTH} characters.`,
    );
  return d;
}

/** Settable statuses: `failed` is reached, never set. */
export function parseSettableStatus(s: string | undefined): 'active' | 'disabled' | undefined {
  if (s === undefined) return undefined;
  if (s !== 'active' && s !== 'disabled')
    throw invalidParam('status', "Invalid status: expected 'active' or 'disabled'.");
  return s;
}

export function parseOverlap(s: number | undefined): number {
  if (s === undefined) return DEFAULT_OVERLAP_S;
  if (!Number.isInteger(s) || s < 0 || s > MAX_OVERLAP_S)
    throw invalidParam(
      'overlap_seconds',
      `Invalid overlap_seconds: expected an integer from 0 to ${MAX_OVERLAP_S}.`,
    );
  return s;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export function parseDeliveryStatus(s: string): DeliveryStatus | undefined {
  if (!s) return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(s))
    throw invalidParam('status', `Invalid status: expected one of ${DELIVERY_STATUSES.join(', ')}.`);
  return s as DeliveryStatus;
}
