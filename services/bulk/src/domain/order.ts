// The JSON (order) form of bulk mint (spec › Bulk mint job, JSON form; Endpoints › Bulk
// mint; Limits 4): validation of the body, expansion into one item per unit, and the
// Idempotency-Key format. Every refusal is a parameter_missing / parameter_invalid /
// parameter_unknown HallmarkError naming the offending field's path. Pure.
import { invalidParam, missingParam } from '@hallmark/kit/errors';
import { emailProblem, isoDateProblem, MAX_SHORT_TEXT_LENGTH } from './fields.js';
import { array, join, object, onlyKeys, optionalText, requiredText, type TextRule } from './json-input.js';
import { parseMetadataItem } from './order-metadata.js';

export const ORDER_SCHEMA_VERSION = '2025-09-01';

export interface ExternalContext {
  source: 'shopify';
  shop: string;
  orderId: string;
  lineItems: { lineItemGid: string; quantity: number }[];
  orderNumber?: string;
  orderName?: string;
  customer?: { email?: string; firstName?: string; lastName?: string };
  createdAt?: string;
  financialStatus?: string;
  fulfillmentStatus?: string;
}

export interface OrderItem {
  /** 0-based position among the expanded units. */
  index: number;
  lineItemGid: string;
  /** name, description, imageUrl, the optional fields present and custom keys. Frozen. */
  metadata: Record<string, unknown>;
}

export interface OrderForm {
  schemaVersion: string;
  externalContext: ExternalContext;
  items: OrderItem[];
}

const SHOP =
  /^(?=.{1,255}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const ORDER_GID = /^gid:\/\/shopify\/Order\/\d{1,20}$/;
const LINE_ITEM_GID = /^gid:\/\/shopify\/LineItem\/\d{1,20}$/;
const RANDOM_HASH = /^[A-Za-z0-9_-]{8,128}$/;

const shopRule: TextRule = {
  max: 255,
  check: (v) => (SHOP.test(v) ? null : 'must be a store domain such as example.myshopify.com'),
};
const gidRule = (re: RegExp, kind: string): TextRule => ({
  max: 64,
  check: (v) => (re.test(v) ? null : `must be a global id of the form gid://shopify/${kind}/<number>`),
});
const dateTimeRule: TextRule = { max: 40, check: isoDateProblem };
const SHORT: TextRule = { max: MAX_SHORT_TEXT_LENGTH };
const STATUS: TextRule = { max: 50 };

/**
 * Validates the body and expands it into one item per unit. Expansion (spec): with one
 * metadata item, every unit of every line item gets that item (a single line item of
 * quantity 3 gives 3 units; two line items of quantities 2 and 1 give 3 units, the first two
 * for the first line item). Otherwise metadata holds exactly one entry per unit, assigned to
 * the line items in order.
 */
export function parseOrderForm(body: unknown, opts: { maxItems: number }): OrderForm {
  const root = object(body, 'body');
  onlyKeys(root, ['schemaVersion', 'metadata', 'externalContext'], '');
  const schemaVersion = requiredText(root, 'schemaVersion', '', { max: 20 });
  if (schemaVersion !== ORDER_SCHEMA_VERSION)
    throw invalidParam(
      'schemaVersion',
      `Unsupported schemaVersion "${schemaVersion}"; the supported value is ${ORDER_SCHEMA_VERSION}.`,
    );
  const externalContext = parseExternalContext(root.externalContext, opts.maxItems);

  const metadata = array(root.metadata, 'metadata');
  if (metadata.length === 0) throw invalidParam('metadata', 'metadata must hold at least one item.');
  const units = externalContext.lineItems.reduce((n, li) => n + li.quantity, 0);
  if (units > opts.maxItems)
    throw invalidParam(
      'externalContext.lineItems',
      `The line items add up to ${units} units; one job accepts at most ${opts.maxItems}.`,
    );
  if (metadata.length !== 1 && metadata.length !== units)
    throw invalidParam(
      'metadata',
      `metadata has ${metadata.length} items but the line items add up to ${units} units.`,
    );
  const parsed = metadata.map((m, i) => parseMetadataItem(m, join('metadata', i)));

  const items: OrderItem[] = [];
  for (const li of externalContext.lineItems)
    for (let q = 0; q < li.quantity; q++) {
      const index = items.length;
      items.push({ index, lineItemGid: li.lineItemGid, metadata: parsed[parsed.length === 1 ? 0 : index]! });
    }
  return { schemaVersion, externalContext, items };
}

function parseExternalContext(value: unknown, maxItems: number): ExternalContext {
  const p = 'externalContext';
  const ctx = object(value, p);
  onlyKeys(
    ctx,
    [
      'source',
      'shop',
      'orderId',
      'lineItems',
      'orderNumber',
      'orderName',
      'customer',
      'createdAt',
      'financialStatus',
      'fulfillmentStatus',
    ],
    p,
  );
  const source = requiredText(ctx, 'source', p, { max: 20 });
  if (source !== 'shopify') throw invalidParam(`${p}.source`, `${p}.source must be "shopify".`);
  const out: ExternalContext = {
    source,
    shop: requiredText(ctx, 'shop', p, shopRule),
    orderId: requiredText(ctx, 'orderId', p, gidRule(ORDER_GID, 'Order')),
    lineItems: parseLineItems(ctx.lineItems, maxItems),
  };
  const orderNumber = ctx.orderNumber;
  if (typeof orderNumber === 'number') {
    if (!Number.isSafeInteger(orderNumber) || orderNumber < 0)
      throw invalidParam(`${p}.orderNumber`, `${p}.orderNumber must be a string or a whole number.`);
    out.orderNumber = String(orderNumber);
  } else setIf(out, 'orderNumber', optionalText(ctx, 'orderNumber', p, { max: 50 }));
  setIf(out, 'orderName', optionalText(ctx, 'orderName', p, { max: 100 }));
  setIf(out, 'createdAt', optionalText(ctx, 'createdAt', p, dateTimeRule));
  setIf(out, 'financialStatus', optionalText(ctx, 'financialStatus', p, STATUS));
  setIf(out, 'fulfillmentStatus', optionalText(ctx, 'fulfillmentStatus', p, STATUS));
  if (ctx.customer !== undefined && ctx.customer !== null)
    out.customer = parseCustomer(ctx.customer, `${p}.customer`);
  return out;
}

function parseLineItems(value: unknown, maxItems: number): ExternalContext['lineItems'] {
  const p = 'externalContext.lineItems';
  const list = array(value, p);
  if (list.length === 0) throw invalidParam(p, `${p} must hold at least one line item.`);
  if (list.length > maxItems) throw invalidParam(p, `${p} has more than ${maxItems} line items.`);
  const seen = new Map<string, number>();
  return list.map((raw, i) => {
    const ip = join(p, i);
    const li = object(raw, ip);
    onlyKeys(li, ['lineItemGid', 'quantity'], ip);
    const lineItemGid = requiredText(li, 'lineItemGid', ip, gidRule(LINE_ITEM_GID, 'LineItem'));
    const first = seen.get(lineItemGid);
    if (first !== undefined)
      throw invalidParam(
        `${ip}.lineItemGid`,
        `${ip}.lineItemGid repeats ${join(p, first)}; list each line item once.`,
      );
    seen.set(lineItemGid, i);
    const quantity = li.quantity;
    if (quantity === undefined || quantity === null) throw missingParam(`${ip}.quantity`);
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 1)
      throw invalidParam(`${ip}.quantity`, `${ip}.quantity must be a whole number of at least 1.`);
    return { lineItemGid, quantity };
  });
}

function parseCustomer(value: unknown, p: string): NonNullable<ExternalContext['customer']> {
  const c = object(value, p);
  onlyKeys(c, ['email', 'firstName', 'lastName'], p);
  const out: NonNullable<ExternalContext['customer']> = {};
  setIf(out, 'email', optionalText(c, 'email', p, { max: 254, check: emailProblem }));
  setIf(out, 'firstName', optionalText(c, 'firstName', p, SHORT));
  setIf(out, 'lastName', optionalText(c, 'lastName', p, SHORT));
  return out;
}

function setIf<T extends object, K extends keyof T>(obj: T, key: K, v: T[K] | undefined): void {
  if (v !== undefined) obj[key] = v;
}

/**
 * Checks an Idempotency-Key of the form `{shop}#{orderId}#{lineItemGid}#{random_hash}`
 * (random_hash: 8 to 128 of A-Z a-z 0-9 _ -). With `ctx`, the key must also belong to that
 * order: same shop (case-insensitive), same orderId, one of its line items. Returns the
 * problem as a sentence, or null when the key is acceptable.
 */
export function idempotencyKeyProblem(key: string | undefined, ctx?: ExternalContext): string | null {
  const format = 'it must have the form {shop}#{orderId}#{lineItemGid}#{random_hash}';
  if (key === undefined || key.trim() === '') return 'The Idempotency-Key header is required.';
  if (key.length > 512) return 'The Idempotency-Key is longer than 512 characters.';
  const parts = key.split('#');
  if (parts.length !== 4) return `The Idempotency-Key has ${parts.length} part(s); ${format}.`;
  const [shop, orderId, lineItemGid, hash] = parts as [string, string, string, string];
  if (!SHOP.test(shop)) return `The Idempotency-Key's shop "${shop}" is not a store domain; ${format}.`;
  if (!ORDER_GID.test(orderId))
    return `The Idempotency-Key's orderId "${orderId}" is not of the form gid://shopify/Order/<number>.`;
  if (!LINE_ITEM_GID.test(lineItemGid))
    return `The Idempotency-Key's lineItemGid "${lineItemGid}" is not of the form gid://shopify/LineItem/<number>.`;
  if (!RANDOM_HASH.test(hash))
    return `The Idempotency-Key's random_hash must be 8 to 128 letters, digits, "_" or "-".`;
  if (ctx) {
    if (shop.toLowerCase() !== ctx.shop.toLowerCase())
      return `The Idempotency-Key's shop "${shop}" differs from externalContext.shop "${ctx.shop}".`;
    if (orderId !== ctx.orderId)
      return `The Idempotency-Key's orderId "${orderId}" differs from externalContext.orderId "${ctx.orderId}".`;
    if (!ctx.lineItems.some((li) => li.lineItemGid === lineItemGid))
      return `The Idempotency-Key's lineItemGid "${lineItemGid}" is not one of externalContext.lineItems.`;
  }
  return null;
}
