// The platform's pure rules: which shops are accepted, how the install callback and inbound
// webhooks are verified, how a paid order becomes bulk's order form, and the fulfilment
// backoff.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { createHmac } from 'node:crypto';
import { backoffMs, trackingFor } from '../src/fulfilment/domain/fulfilment.js';
import { callbackMessage, parseShop, parseSupplied, verifyCallback } from '../src/install/domain/oauth.js';
import { parseMapping } from '../src/install/domain/settings.js';
import { buildOrderForm, idempotencyKeyFor } from '../src/orders/domain/order-form.js';
import {
  checkBoundToShop,
  checkFreshness,
  MAX_WEBHOOK_AGE_MS,
  parseOrder,
  shopNamedBy,
  verifyWebhook,
} from '../src/orders/domain/webhook.js';

const SUFFIX = '.myshopify.com';
const SECRET = 'app-secret';
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as HallmarkError).code;
  }
  return null;
};

describe('shop domains', () => {
  it('accepts one label plus the platform suffix, lower-cased; refuses hosts, ports, paths', () => {
    expect(parseShop('My-Shop.myshopify.com', SUFFIX)).toBe('my-shop.myshopify.com');
    for (const bad of [
      'evil.com',
      'a.b.myshopify.com',
      'x.myshopify.com:8080',
      'x.myshopify.com/admin',
      '.myshopify.com',
      '-x.myshopify.com',
      '',
    ])
      expect(codeOf(() => parseShop(bad, SUFFIX))).toBe('parameter_invalid');
  });
});

describe('install callback', () => {
  const now = 1_800_000_000;
  const signed = (q: Record<string, string>) => ({
    ...q,
    hmac: createHmac('sha256', SECRET).update(callbackMessage(q)).digest('hex'),
  });
  const query = () =>
    signed({
      code: 'c0de',
      host: 'aG9zdA',
      shop: 'a.myshopify.com',
      state: 's'.repeat(64),
      timestamp: String(now),
    });

  it('accepts a query signed with the app secret over the sorted other parameters', () => {
    expect(() => verifyCallback(query(), SECRET, now, 300)).not.toThrow();
  });

  it('refuses a changed parameter, another secret, a stale timestamp or a missing signature (401)', () => {
    expect(codeOf(() => verifyCallback({ ...query(), state: 'x' }, SECRET, now, 300))).toBe('invalid_token');
    expect(codeOf(() => verifyCallback(query(), 'other', now, 300))).toBe('invalid_token');
    expect(codeOf(() => verifyCallback(query(), SECRET, now + 301, 300))).toBe('invalid_token');
    const { hmac: _h, ...unsigned } = query();
    expect(codeOf(() => verifyCallback(unsigned, SECRET, now, 300))).toBe('invalid_token');
  });

  it('takes supplied credentials only whole and well-formed', () => {
    expect(parseSupplied({})).toBeNull();
    expect(codeOf(() => parseSupplied({ apiKeyId: 'apikey_x' }))).toBe('parameter_invalid');
    expect(codeOf(() => parseSupplied({ webhookSecret: 'short' }))).toBe('parameter_invalid');
    expect(parseSupplied({ webhookSecret: 'a'.repeat(64) })).toEqual({ webhookSecret: 'a'.repeat(64) });
  });
});

describe('inbound webhooks', () => {
  const body = Buffer.from(JSON.stringify({ id: 1 }));
  it('accepts the base64 HMAC of the raw body and refuses any other (401)', () => {
    expect(() =>
      verifyWebhook(body, createHmac('sha256', SECRET).update(body).digest('base64'), SECRET),
    ).not.toThrow();
    expect(
      codeOf(() => verifyWebhook(body, createHmac('sha256', 'x').update(body).digest('base64'), SECRET)),
    ).toBe('invalid_token');
    expect(codeOf(() => verifyWebhook(body, '', SECRET))).toBe('invalid_token');
  });

  it('reads the order: global ids, units, customer; drops removed lines', () => {
    const o = parseOrder({
      id: 42,
      name: '#1001',
      order_number: 1001,
      email: 'b@x.test',
      customer: { first_name: 'Ada', last_name: 'L' },
      line_items: [
        { id: 7, product_id: 9, variant_id: 10, quantity: 2, title: 'Bag', sku: 'B' },
        { id: 8, product_id: 9, quantity: 1, current_quantity: 0, title: 'Removed' },
      ],
    });
    expect(o).toMatchObject({
      gid: 'gid://shopify/Order/42',
      number: '1001',
      customer: { email: 'b@x.test', firstName: 'Ada' },
    });
    expect(o.lines).toEqual([
      expect.objectContaining({
        gid: 'gid://shopify/LineItem/7',
        productGid: 'gid://shopify/Product/9',
        quantity: 2,
      }),
    ]);
    expect(codeOf(() => parseOrder({ line_items: [] }))).toBe('parameter_invalid');
  });
});

describe('order form', () => {
  const order = parseOrder({
    id: 42,
    name: '#1001',
    line_items: [
      { id: 7, product_id: 9, variant_id: 10, quantity: 2, title: 'Bag', sku: 'B-1' },
      { id: 8, product_id: 11, quantity: 1, title: 'Belt' },
    ],
  });
  const products = new Map([
    [
      'gid://shopify/Product/9',
      { title: 'Bag', vendor: 'V', productType: 'Handbag', imageUrl: 'https://cdn/bag.png' },
    ],
    [
      'gid://shopify/Product/11',
      { title: 'Belt', vendor: 'V', productType: '', imageUrl: 'https://cdn/belt.png' },
    ],
  ]);

  it('has one metadata entry per unit and the order as external context', () => {
    const { body, units } = buildOrderForm('s.myshopify.com', order, products, null);
    expect(units).toBe(3);
    const b = body as any;
    expect(b.schemaVersion).toBe('2025-09-01');
    expect(b.metadata.map((m: any) => m.imageUrl)).toEqual([
      'https://cdn/bag.png',
      'https://cdn/bag.png',
      'https://cdn/belt.png',
    ]);
    expect(b.metadata[0]).toMatchObject({ name: 'Bag', sku: 'B-1', vendor: 'V', productType: 'Handbag' });
    expect(b.externalContext).toMatchObject({
      source: 'shopify',
      shop: 's.myshopify.com',
      orderId: 'gid://shopify/Order/42',
      orderName: '#1001',
      lineItems: [
        { lineItemGid: 'gid://shopify/LineItem/7', quantity: 2 },
        { lineItemGid: 'gid://shopify/LineItem/8', quantity: 1 },
      ],
    });
  });

  it('applies an enabled product mapping: template (variant first) and copied fields', () => {
    const mapping = parseMapping({
      'gid://shopify/Product/9': {
        templateId: 'tmpl_a',
        variantMappings: { 'gid://shopify/ProductVariant/10': 'tmpl_v' },
        metadataMapping: { 'lineItem.sku': 'serialNumber', 'order.name': 'orderName' },
      },
      'gid://shopify/Product/11': { templateId: 'tmpl_b', enabled: false },
    });
    const b = buildOrderForm('s.myshopify.com', order, products, mapping).body as any;
    expect(b.metadata[0]).toMatchObject({ templateId: 'tmpl_v', serialNumber: 'B-1', orderName: '#1001' });
    expect(b.metadata[2].templateId).toBeUndefined();
  });

  it('derives the same Idempotency-Key of the spec’s form for every run of an order', () => {
    const key = idempotencyKeyFor('s.myshopify.com', order);
    expect(key).toBe(idempotencyKeyFor('s.myshopify.com', order));
    expect(key).toMatch(
      /^s\.myshopify\.com#gid:\/\/shopify\/Order\/42#gid:\/\/shopify\/LineItem\/7#[0-9a-f]{32}$/,
    );
  });

  it('without the products (Admin API down) builds the form from the line items, the image from the mapping, else the issuer logo', () => {
    const mapping = parseMapping({
      'gid://shopify/Product/9': { templateId: 'tmpl_a', imageUrl: 'https://cdn/default-bag.png' },
    });
    const none = new Map();
    const fromMapping = buildOrderForm('s.myshopify.com', order, none, mapping);
    const b = fromMapping.body as any;
    expect(b.metadata[0]).toMatchObject({ name: 'Bag', sku: 'B-1', imageUrl: 'https://cdn/default-bag.png' });
    // The belt has no mapping: no image anywhere, and the form says which unit.
    expect(fromMapping.missingImage).toMatchObject({
      code: 'parameter_missing',
      param: 'metadata[2].imageUrl',
    });
    expect(fromMapping.missingImage!.message).toContain('Belt');
    const withLogo = buildOrderForm('s.myshopify.com', order, none, mapping, 'https://brand/logo.png');
    expect(withLogo.missingImage).toBeNull();
    expect((withLogo.body as any).metadata.map((m: any) => m.imageUrl)).toEqual([
      'https://cdn/default-bag.png',
      'https://cdn/default-bag.png',
      'https://brand/logo.png',
    ]);
    // The product's own image wins over both.
    expect(
      (buildOrderForm('s.myshopify.com', order, products, mapping, 'https://brand/logo.png').body as any)
        .metadata[0].imageUrl,
    ).toBe('https://cdn/bag.png');
  });

  it('refuses a mapping imageUrl that is not https', () => {
    expect(
      codeOf(() =>
        parseMapping({ 'gid://shopify/Product/1': { templateId: 'x', imageUrl: 'http://cdn/a.png' } }),
      ),
    ).toBe('parameter_invalid');
  });

  it('refuses a mapping keyed by something other than a product id', () => {
    expect(codeOf(() => parseMapping({ nope: { templateId: 'x' } }))).toBe('parameter_invalid');
    expect(codeOf(() => parseMapping({ 'gid://shopify/Product/1': {} }))).toBe('parameter_invalid');
    expect(parseMapping(null)).toBeNull();
  });
});

describe('fulfilment', () => {
  it('backs off 1 s, 2 s, 4 s … capped at 10 s', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffMs(a, 1000))).toEqual([1000, 2000, 4000, 8000, 10_000]);
  });

  it('tracks with the transaction hash and the explorer url', () => {
    expect(trackingFor('0xab', 'https://x/tx/{hash}', 'Hallmark')).toEqual({
      number: '0xab',
      url: 'https://x/tx/0xab',
      company: 'Hallmark',
    });
  });
});

describe('inbound webhooks: the unsigned headers', () => {
  const A = 'shop-a.myshopify.com';
  const B = 'shop-b.myshopify.com';

  it('bind the signed body to the header shop: app/uninstalled must name it, an order on a store domain must match', () => {
    const uninstalled = { id: 1, name: 'shop-a', domain: A, myshopify_domain: A };
    expect(shopNamedBy('app/uninstalled', uninstalled, SUFFIX)).toBe(A);
    expect(codeOf(() => checkBoundToShop('app/uninstalled', uninstalled, A, SUFFIX))).toBeNull();
    expect(codeOf(() => checkBoundToShop('app/uninstalled', uninstalled, B, SUFFIX))).toBe('invalid_token');
    // A custom `domain` is not the store's: `myshopify_domain` decides.
    const custom = { ...uninstalled, domain: 'www.shop-a.example' };
    expect(codeOf(() => checkBoundToShop('app/uninstalled', custom, A, SUFFIX))).toBeNull();
    // Naming no shop is refused for app/uninstalled (fail closed).
    for (const body of [{ id: 1 }, { domain: 'www.shop-a.example' }, [], null])
      expect(codeOf(() => checkBoundToShop('app/uninstalled', body, A, SUFFIX))).toBe('invalid_token');

    const order = { id: 7, order_status_url: `https://${A}/orders/7/status` };
    expect(codeOf(() => checkBoundToShop('orders/paid', order, A, SUFFIX))).toBeNull();
    expect(codeOf(() => checkBoundToShop('orders/paid', order, B, SUFFIX))).toBe('invalid_token');
    expect(codeOf(() => checkBoundToShop('orders/cancelled', order, B, SUFFIX))).toBe('invalid_token');
    // An order on a custom domain, or without the URL, names no shop: the store's order check decides.
    expect(
      shopNamedBy('orders/paid', { id: 7, order_status_url: 'https://shop.example/o/7' }, SUFFIX),
    ).toBeNull();
    expect(codeOf(() => checkBoundToShop('orders/create', { id: 7 }, B, SUFFIX))).toBeNull();
  });

  it(`refuse a delivery triggered more than ${MAX_WEBHOOK_AGE_MS / 3_600_000} h ago, more than 5 min ahead, or without a time`, () => {
    const now = Date.parse('2026-06-01T12:00:00Z');
    const at = (ms: number) => new Date(now + ms).toISOString();
    expect(codeOf(() => checkFreshness(at(0), now))).toBeNull();
    expect(codeOf(() => checkFreshness(at(-MAX_WEBHOOK_AGE_MS + 1000), now))).toBeNull();
    expect(codeOf(() => checkFreshness(at(4 * 60_000), now))).toBeNull();
    for (const bad of [at(-MAX_WEBHOOK_AGE_MS - 1000), at(6 * 60_000), '', 'yesterday', '1717243200'])
      expect([bad, codeOf(() => checkFreshness(bad, now))]).toEqual([bad, 'invalid_token']);
  });
});
