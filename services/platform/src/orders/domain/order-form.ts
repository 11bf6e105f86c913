// A paid order as bulk's JSON order form (spec › Resources › Bulk mint job, JSON form): one
// metadata entry per unit across the line items (name, description, image, sku, vendor,
// productType; the product template mapping adds templateId and copies fields by
// metadataMapping), the ExternalContext from the order, and the Idempotency-Key.
//
// The products come from the Admin API when it answers; when it does not, the form is built
// from the order's own line items (title, sku, vendor) and the image falls back to the
// mapping's `imageUrl`, then the issuer profile's logo. A unit with no image at all cannot
// be minted: `missingImage` says which, and the order is reported, not sent to bulk.
import { sha256Hex } from '@hallmark/kit/crypto';
import type { ProductTemplateMapping } from '../../install/domain/settings.js';
import type { PlatformOrder } from './webhook.js';

export const SCHEMA_VERSION = '2025-09-01';
export const MAX_UNITS = 50_000;

export interface ProductFacts {
  title: string;
  vendor: string;
  productType: string;
  imageUrl: string | null;
}

/**
 * `{shop}#{orderId}#{lineItemGid}#{hash}`. The spec calls the last part random; here it is
 * derived from shop and order, so any re-run for the same order (a workflow retried, a
 * redelivered webhook, a crash between create and record) presents the same key and bulk
 * answers the existing job instead of minting twice.
 */
export function idempotencyKeyFor(shop: string, order: PlatformOrder): string {
  const first = order.lines[0]!.gid;
  return `${shop}#${order.gid}#${first}#${sha256Hex(`${shop}#${order.gid}`).slice(0, 32)}`;
}

/** Reads `a.b.c` (array indexes allowed) from the sources a metadataMapping may name. */
function pick(sources: Record<string, unknown>, path: string): unknown {
  let v: unknown = sources;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

const RESERVED = new Set(['name', 'description', 'imageUrl']);

/** Why an order cannot become its job, in the spec's error terms. */
export interface OrderFailure {
  code: string;
  message: string;
  param?: string;
}

export interface OrderForm {
  body: Record<string, unknown>;
  units: number;
  /** The first unit without an image, if any (the form must not be sent). */
  missingImage: OrderFailure | null;
}

export function buildOrderForm(
  shop: string,
  order: PlatformOrder,
  products: Map<string, ProductFacts>,
  mapping: ProductTemplateMapping | null,
  issuerLogoUrl: string | null = null,
): OrderForm {
  const metadata: Record<string, unknown>[] = [];
  let missingImage: OrderFailure | null = null;
  for (const line of order.lines) {
    const product = line.productGid ? products.get(line.productGid) : undefined;
    const m = line.productGid ? mapping?.[line.productGid] : undefined;
    const imageUrl = product?.imageUrl || (m?.enabled && m.imageUrl) || issuerLogoUrl || '';
    if (!imageUrl && !missingImage)
      missingImage = {
        code: 'parameter_missing',
        param: `metadata[${metadata.length}].imageUrl`,
        message:
          `“${line.title}” has no image: the product has none (or the platform's Admin API could not be read), ` +
          'its product template mapping sets no imageUrl and the issuer profile has no logo. Give the product an ' +
          'image, or set settings.productTemplateMapping.<product>.imageUrl or the issuer profile’s logo.',
      };
    const entry: Record<string, unknown> = {
      name: line.title,
      description: `${line.title}, ${shop} order ${order.name ?? order.number ?? order.gid}`,
      imageUrl,
    };
    if (line.sku) entry.sku = line.sku;
    if (line.vendor ?? product?.vendor) entry.vendor = line.vendor ?? product?.vendor;
    if (product?.productType) entry.productType = product.productType;
    if (m?.enabled) {
      entry.templateId = (line.variantGid && m.variantMappings[line.variantGid]) || m.templateId;
      const sources = { order: order.raw, lineItem: line.raw, product: product ?? {} };
      for (const [source, target] of Object.entries(m.metadataMapping)) {
        const v = pick(sources, source);
        if (v !== undefined && (!RESERVED.has(target) || typeof v === 'string')) entry[target] = v;
      }
    }
    for (let q = 0; q < line.quantity; q++) metadata.push({ ...entry });
  }
  const externalContext: Record<string, unknown> = {
    source: 'shopify',
    shop,
    orderId: order.gid,
    lineItems: order.lines.map((l) => ({ lineItemGid: l.gid, quantity: l.quantity })),
  };
  if (order.number) externalContext.orderNumber = order.number;
  if (order.name) externalContext.orderName = order.name.slice(0, 100);
  if (order.createdAt) externalContext.createdAt = order.createdAt;
  if (order.financialStatus) externalContext.financialStatus = order.financialStatus;
  if (order.fulfillmentStatus) externalContext.fulfillmentStatus = order.fulfillmentStatus;
  if (order.customer?.email) externalContext.customer = order.customer;
  return {
    body: { schemaVersion: SCHEMA_VERSION, metadata, externalContext },
    units: metadata.length,
    missingImage,
  };
}
