// Inbound platform webhooks: the signature rule (spec › Authentication 12: base64
// HMAC-SHA256 of the raw body with the app secret, compared in constant time), the topics
// Hallmark subscribes to, and the order body read into the fields Hallmark uses.
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

export function verifyWebhook(body: Buffer, hmacHeader: string, secret: string): void {
  const expected = hmacSha256(secret, body, 'base64');
  if (!hmacHeader || !constantTimeEqual(expected, hmacHeader.trim()))
    throw new HallmarkError('invalid_token', { message: 'The webhook signature is invalid.' });
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

const isRecord = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
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
