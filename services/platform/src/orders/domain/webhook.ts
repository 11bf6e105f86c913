// Inbound platform webhooks: the signature rule (spec › Authentication 12: base64
// HMAC-SHA256 of the raw body with the app secret, compared in constant time), the topics
// Hallmark subscribes to, and the order body read into the fields Hallmark uses.
//
// The signature covers the body only: X-Platform-Shop-Domain, -Webhook-Id and -Triggered-At
// are not signed. So the shop a body names (the signed part) must be the header's shop
// (shopNamedBy), a webhook id is acted on once (the store), and a delivery older than
// MAX_WEBHOOK_AGE_MS by its triggered-at is refused (checkFreshness) — that last one only
// stops a replay that keeps the original headers, since the header is unsigned.
import { constantTimeEqual, hmacSha256 } from '@hallmark/kit/crypto';
import { HallmarkError, invalidParam } from '@hallmark/kit/errors';

export const INBOUND_TOPICS = [
  'orders/create',
  'orders/paid',
  'orders/cancelled',
  'app/uninstalled',
] as const;
export type InboundTopic = (typeof INBOUND_TOPICS)[number];

export const isInboundTopic = (t: string): t is InboundTopic =>
  (INBOUND_TOPICS as readonly string[]).includes(t);

const isRecord = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

export function verifyWebhook(body: Buffer, hmacHeader: string, secret: string): void {
  const expected = hmacSha256(secret, body, 'base64');
  if (!hmacHeader || !constantTimeEqual(expected, hmacHeader.trim()))
    throw new HallmarkError('invalid_token', { message: 'The webhook signature is invalid.' });
}

/**
 * The platform retries a failed delivery for about four hours; a delivery triggered longer
 * ago than this is refused. Webhook ids are remembered for good (inbound_webhooks is never
 * pruned), so every id this window lets through is still deduplicated.
 */
export const MAX_WEBHOOK_AGE_MS = 6 * 60 * 60 * 1000;
/** A sender's clock may run this far ahead of ours. */
export const MAX_WEBHOOK_SKEW_MS = 5 * 60 * 1000;

/** Throws (401) unless `triggeredAt` is an ISO time within the freshness window of `nowMs`. */
export function checkFreshness(triggeredAt: string, nowMs: number): void {
  const at = /^\d{4}-\d{2}-\d{2}T/.test(triggeredAt) ? Date.parse(triggeredAt) : NaN;
  if (Number.isNaN(at))
    throw new HallmarkError('invalid_token', {
      message: 'The webhook has no valid X-Platform-Triggered-At time.',
    });
  if (nowMs - at > MAX_WEBHOOK_AGE_MS || at - nowMs > MAX_WEBHOOK_SKEW_MS)
    throw new HallmarkError('invalid_token', {
      message: `The webhook was triggered at ${triggeredAt}, outside the ${MAX_WEBHOOK_AGE_MS / 3_600_000} h window.`,
    });
}

const storeHost = (raw: unknown, suffix: string): string | null => {
  if (typeof raw !== 'string' || !raw) return null;
  let host: string;
  try {
    host = (raw.includes('://') ? new URL(raw).hostname : raw).trim().toLowerCase();
  } catch {
    return null;
  }
  return host.endsWith(suffix) && host.length > suffix.length ? host : null;
};

/**
 * The store domain the signed body names, or null when it names none. `app/uninstalled`
 * carries the shop itself (`myshopify_domain`, else `domain`); an order names its shop in
 * `order_status_url` when that is on a store domain (a shop's custom domain says nothing:
 * null). The caller refuses a body naming another shop than the header, and an
 * `app/uninstalled` naming none.
 */
export function shopNamedBy(topic: InboundTopic, payload: unknown, suffix: string): string | null {
  if (!isRecord(payload)) return null;
  if (topic === 'app/uninstalled')
    return storeHost(payload.myshopify_domain, suffix) ?? storeHost(payload.domain, suffix);
  return storeHost(payload.order_status_url, suffix);
}

/** Throws (401) unless the signed body is bound to `shop` (see shopNamedBy). */
export function checkBoundToShop(topic: InboundTopic, payload: unknown, shop: string, suffix: string): void {
  const named = shopNamedBy(topic, payload, suffix);
  if (named === shop) return;
  if (named !== null || topic === 'app/uninstalled')
    throw new HallmarkError('invalid_token', {
      message: 'The webhook body does not name the shop of X-Platform-Shop-Domain.',
    });
}

export interface OrderLine {
  gid: string;
  productGid: string | null;
  variantGid: string | null;
  quantity: number;
  title: string;
  sku: string | null;
  vendor: string | null;
  /** The line item as received, for metadataMapping source paths. */
  raw: Record<string, unknown>;
}

export interface PlatformOrder {
  gid: string;
  number: string | null;
  name: string | null;
  createdAt: string | null;
  financialStatus: string | null;
  fulfillmentStatus: string | null;
  customer: { email?: string; firstName?: string; lastName?: string } | null;
  lines: OrderLine[];
  raw: Record<string, unknown>;
}

const str = (v: unknown): string | null =>
  typeof v === 'string' && v.length > 0 ? v : typeof v === 'number' ? String(v) : null;
const gidOf = (type: string, v: unknown): string | null => {
  if (typeof v === 'string' && new RegExp(`^gid://shopify/${type}/\\d+$`).test(v)) return v;
  if (
    (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) ||
    (typeof v === 'string' && /^\d{1,20}$/.test(v))
  )
    return `gid://shopify/${type}/${v}`;
  return null;
};

/** The order in an `orders/*` body; a body without a usable order id is refused. */
export function parseOrder(body: unknown): PlatformOrder {
  if (!isRecord(body)) throw invalidParam('body', 'The webhook body is not an order.');
  const gid = gidOf('Order', body.admin_graphql_api_id) ?? gidOf('Order', body.id);
  if (!gid) throw invalidParam('body.id', 'The order has no id.');
  const lines = (Array.isArray(body.line_items) ? body.line_items : [])
    .filter(isRecord)
    .flatMap((li): OrderLine[] => {
      const lineGid = gidOf('LineItem', li.admin_graphql_api_id) ?? gidOf('LineItem', li.id);
      const quantity = Number(li.current_quantity ?? li.quantity);
      if (!lineGid || !Number.isSafeInteger(quantity) || quantity < 1) return [];
      return [
        {
          gid: lineGid,
          productGid: gidOf('Product', li.product_id),
          variantGid: gidOf('ProductVariant', li.variant_id),
          quantity,
          title: str(li.title) ?? str(li.name) ?? 'Item',
          sku: str(li.sku),
          vendor: str(li.vendor),
          raw: li,
        },
      ];
    });
  const c = isRecord(body.customer) ? body.customer : null;
  const email = str(c?.email) ?? str(body.email);
  return {
    gid,
    number: str(body.order_number),
    name: str(body.name),
    createdAt: str(body.created_at),
    financialStatus: str(body.financial_status),
    fulfillmentStatus: str(body.fulfillment_status),
    customer:
      c || email
        ? {
            email: email ?? undefined,
            firstName: str(c?.first_name) ?? undefined,
            lastName: str(c?.last_name) ?? undefined,
          }
        : null,
    lines,
    raw: body,
  };
}
