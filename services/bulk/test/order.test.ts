// The JSON (order) form (spec › Bulk mint job, JSON form; Endpoints › Bulk mint; Limits 4):
// expansion into units, every refusal naming the field's path, custom keys kept safely, and
// the Idempotency-Key format.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { idempotencyKeyProblem, ORDER_SCHEMA_VERSION, parseOrderForm } from '../src/domain/order.js';

const OPTS = { maxItems: 50_000 };
const LI1 = 'gid://shopify/LineItem/111';
const LI2 = 'gid://shopify/LineItem/222';
const item = (n = 1, extra: Record<string, unknown> = {}) => ({
  name: `Item ${n}`,
  description: `Description ${n}`,
  imageUrl: `https://cdn.example.com/${n}.png`,
  ...extra,
});
const body = (over: Record<string, unknown> = {}, ctx: Record<string, unknown> = {}) => ({
  schemaVersion: ORDER_SCHEMA_VERSION,
  metadata: [item()],
  externalContext: {
    source: 'shopify',
    shop: 'acme.myshopify.com',
    orderId: 'gid://shopify/Order/5001',
    lineItems: [{ lineItemGid: LI1, quantity: 1 }],
    ...ctx,
  },
  ...over,
});

/** The refusal: its code, param and message. */
function refusal(input: unknown, opts = OPTS): { code: string; param?: string; message: string } {
  try {
    parseOrderForm(input, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    const e = err as HallmarkError;
    return { code: e.code, param: e.param, message: e.message };
  }
  throw new Error('expected the body to be refused');
}

describe('parseOrderForm: expansion', () => {
  it('expands one metadata item by the quantity of the line item', () => {
    const form = parseOrderForm(body({}, { lineItems: [{ lineItemGid: LI1, quantity: 3 }] }), OPTS);
    expect(form.items.map((i) => [i.index, i.lineItemGid, i.metadata.name])).toEqual([
      [0, LI1, 'Item 1'],
      [1, LI1, 'Item 1'],
      [2, LI1, 'Item 1'],
    ]);
  });

  it('expands one metadata item across every line item, in order', () => {
    const lineItems = [
      { lineItemGid: LI1, quantity: 2 },
      { lineItemGid: LI2, quantity: 1 },
    ];
    const form = parseOrderForm(body({}, { lineItems }), OPTS);
    expect(form.items.map((i) => i.lineItemGid)).toEqual([LI1, LI1, LI2]);
  });

  it('assigns one metadata entry per unit to the line items in order', () => {
    const lineItems = [
      { lineItemGid: LI1, quantity: 2 },
      { lineItemGid: LI2, quantity: 1 },
    ];
    const form = parseOrderForm(body({ metadata: [item(1), item(2), item(3)] }, { lineItems }), OPTS);
    expect(form.items.map((i) => [i.lineItemGid, i.metadata.name])).toEqual([
      [LI1, 'Item 1'],
      [LI1, 'Item 2'],
      [LI2, 'Item 3'],
    ]);
  });

  it('refuses a metadata count that matches neither 1 nor the units', () => {
    const lineItems = [{ lineItemGid: LI1, quantity: 3 }];
    expect(refusal(body({ metadata: [item(1), item(2)] }, { lineItems }))).toEqual({
      code: 'parameter_invalid',
      param: 'metadata',
      message: 'metadata has 2 items but the line items add up to 3 units.',
    });
  });

  it('refuses more units than maxItems on the line items, without expanding them', () => {
    const r = refusal(body({}, { lineItems: [{ lineItemGid: LI1, quantity: 1_000_000_000 }] }));
    expect(r).toMatchObject({ code: 'parameter_invalid', param: 'externalContext.lineItems' });
    expect(r.message).toContain('at most 50000');
    expect(
      parseOrderForm(body({}, { lineItems: [{ lineItemGid: LI1, quantity: 5 }] }), { maxItems: 5 }).items,
    ).toHaveLength(5);
  });

  it('shares one frozen copy of the metadata between expanded units', () => {
    const form = parseOrderForm(body({}, { lineItems: [{ lineItemGid: LI1, quantity: 2 }] }), OPTS);
    expect(Object.isFrozen(form.items[0]!.metadata)).toBe(true);
    expect(() => {
      (form.items[0]!.metadata as Record<string, unknown>).name = 'changed';
    }).toThrow(TypeError);
  });
});

describe('parseOrderForm: the body', () => {
  it('refuses a body that is not an object', () => {
    expect(refusal([1, 2])).toMatchObject({ code: 'parameter_invalid', param: 'body' });
    expect(refusal(undefined)).toMatchObject({ code: 'parameter_missing', param: 'body' });
  });

  it('refuses unknown top-level fields, naming them', () => {
    const r = refusal({ ...body(), metdata: [], extra: 1 });
    expect(r).toMatchObject({ code: 'parameter_unknown', param: 'metdata' });
    expect(r.message).toContain('"metdata", "extra"');
  });

  it('requires schemaVersion and accepts only 2025-09-01', () => {
    const { schemaVersion: _s, ...without } = body();
    expect(refusal(without)).toMatchObject({ code: 'parameter_missing', param: 'schemaVersion' });
    expect(refusal(body({ schemaVersion: '2024-01-01' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'schemaVersion',
    });
  });

  it('requires a non-empty metadata array', () => {
    const { metadata: _m, ...without } = body();
    expect(refusal(without)).toMatchObject({ code: 'parameter_missing', param: 'metadata' });
    expect(refusal(body({ metadata: [] }))).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
    expect(refusal(body({ metadata: { name: 'x' } }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'metadata',
    });
  });
});

describe('parseOrderForm: metadata items', () => {
  const two = (second: unknown) =>
    body({ metadata: [item(1), second] }, { lineItems: [{ lineItemGid: LI1, quantity: 2 }] });

  it.each([
    [
      'a missing description',
      { name: 'n', imageUrl: 'https://x.example/a.png' },
      'parameter_missing',
      'metadata[1].description',
    ],
    ['an empty name', item(2, { name: '  ' }), 'parameter_invalid', 'metadata[1].name'],
    [
      'a name over 200 characters',
      item(2, { name: 'n'.repeat(201) }),
      'parameter_invalid',
      'metadata[1].name',
    ],
    ['a non-string description', item(2, { description: 5 }), 'parameter_invalid', 'metadata[1].description'],
    [
      'an http imageUrl',
      item(2, { imageUrl: 'http://x.example/a.png' }),
      'parameter_invalid',
      'metadata[1].imageUrl',
    ],
    [
      'an impossible warrantyExpiry',
      item(2, { warrantyExpiry: '2026-02-30' }),
      'parameter_invalid',
      'metadata[1].warrantyExpiry',
    ],
    [
      'a non-URL externalUrl',
      item(2, { externalUrl: 'ftp://x.example' }),
      'parameter_invalid',
      'metadata[1].externalUrl',
    ],
    ['a non-string sku', item(2, { sku: 12 }), 'parameter_invalid', 'metadata[1].sku'],
    ['an item that is not an object', 'just a string', 'parameter_invalid', 'metadata[1]'],
  ])('refuses %s, naming its path', (_what, second, code, param) => {
    expect(refusal(two(second))).toMatchObject({ code, param });
  });

  it('keeps the optional fields and custom JSON keys, and drops null optional fields', () => {
    const meta = item(1, {
      sku: 'SKU-1',
      warrantyExpiry: '2030-12-31',
      externalUrl: 'http://shop.example.com/p/1',
      vendor: null,
      edition: { number: 7, of: 100, signed: true, tags: ['a', 'b'] },
    });
    const [first] = parseOrderForm(body({ metadata: [meta] }), OPTS).items;
    expect(first!.metadata).toEqual({
      name: 'Item 1',
      description: 'Description 1',
      imageUrl: 'https://cdn.example.com/1.png',
      sku: 'SKU-1',
      warrantyExpiry: '2030-12-31',
      externalUrl: 'http://shop.example.com/p/1',
      edition: { number: 7, of: 100, signed: true, tags: ['a', 'b'] },
    });
  });

  it('refuses prototype-pollution keys at any depth and leaves Object.prototype alone', () => {
    const top = JSON.parse(
      `{"name":"n","description":"d","imageUrl":"https://x.example/a","__proto__":{"polluted":1}}`,
    );
    expect(refusal(body({ metadata: [top] }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'metadata[0].__proto__',
    });
    const nested = item(1, { info: JSON.parse('{"a":{"__proto__":{"polluted":1}}}') });
    expect(refusal(body({ metadata: [nested] }))).toMatchObject({ param: 'metadata[0].info.a.__proto__' });
    expect(refusal(body({ metadata: [item(1, { constructor: { prototype: 1 } })] }))).toMatchObject({
      param: 'metadata[0].constructor',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses custom values that are not JSON, or nested too deep', () => {
    expect(refusal(body({ metadata: [item(1, { when: new Date() })] }))).toMatchObject({
      param: 'metadata[0].when',
    });
    expect(refusal(body({ metadata: [item(1, { n: Number.NaN })] }))).toMatchObject({
      param: 'metadata[0].n',
    });
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
    expect(refusal(body({ metadata: [item(1, { deep })] })).message).toMatch(/nested more than 5 levels/);
  });
});

describe('parseOrderForm: externalContext', () => {
  it.each([
    ['a source other than shopify', { source: 'woocommerce' }, 'parameter_invalid', 'externalContext.source'],
    ['a missing shop', { shop: undefined }, 'parameter_missing', 'externalContext.shop'],
    ['a shop that is not a domain', { shop: 'acme shop' }, 'parameter_invalid', 'externalContext.shop'],
    [
      'an orderId that is not an Order gid',
      { orderId: '5001' },
      'parameter_invalid',
      'externalContext.orderId',
    ],
    ['no line items', { lineItems: [] }, 'parameter_invalid', 'externalContext.lineItems'],
    [
      'a LineItem gid of the wrong kind',
      { lineItems: [{ lineItemGid: 'gid://shopify/Product/1', quantity: 1 }] },
      'parameter_invalid',
      'externalContext.lineItems[0].lineItemGid',
    ],
    [
      'a zero quantity',
      { lineItems: [{ lineItemGid: LI1, quantity: 0 }] },
      'parameter_invalid',
      'externalContext.lineItems[0].quantity',
    ],
    [
      'a fractional quantity',
      { lineItems: [{ lineItemGid: LI1, quantity: 1.5 }] },
      'parameter_invalid',
      'externalContext.lineItems[0].quantity',
    ],
    [
      'a string quantity',
      { lineItems: [{ lineItemGid: LI1, quantity: '2' }] },
      'parameter_invalid',
      'externalContext.lineItems[0].quantity',
    ],
    [
      'a missing quantity',
      { lineItems: [{ lineItemGid: LI1 }] },
      'parameter_missing',
      'externalContext.lineItems[0].quantity',
    ],
    [
      'a repeated line item',
      {
        lineItems: [
          { lineItemGid: LI1, quantity: 1 },
          { lineItemGid: LI1, quantity: 1 },
        ],
      },
      'parameter_invalid',
      'externalContext.lineItems[1].lineItemGid',
    ],
    ['an unknown field', { orderID: 'x' }, 'parameter_unknown', 'externalContext.orderID'],
    [
      'an invalid customer e-mail',
      { customer: { email: 'nope' } },
      'parameter_invalid',
      'externalContext.customer.email',
    ],
    [
      'a createdAt that is not ISO 8601',
      { createdAt: 'yesterday' },
      'parameter_invalid',
      'externalContext.createdAt',
    ],
  ])('refuses %s', (_what, ctx, code, param) => {
    expect(refusal(body({}, ctx))).toMatchObject({ code, param });
  });

  it('keeps the optional fields, turns a numeric orderNumber into a string and drops nulls', () => {
    const form = parseOrderForm(
      body(
        {},
        {
          orderNumber: 1001,
          orderName: '#1001',
          customer: { email: 'jane@example.com', firstName: 'Jane', lastName: null },
          createdAt: '2025-09-01T10:00:00Z',
          financialStatus: 'paid',
          fulfillmentStatus: null,
        },
      ),
      OPTS,
    );
    expect(form.externalContext).toEqual({
      source: 'shopify',
      shop: 'acme.myshopify.com',
      orderId: 'gid://shopify/Order/5001',
      lineItems: [{ lineItemGid: LI1, quantity: 1 }],
      orderNumber: '1001',
      orderName: '#1001',
      customer: { email: 'jane@example.com', firstName: 'Jane' },
      createdAt: '2025-09-01T10:00:00Z',
      financialStatus: 'paid',
    });
  });
});

describe('idempotencyKeyProblem', () => {
  const KEY = `acme.myshopify.com#gid://shopify/Order/5001#${LI1}#a1b2c3d4e5f6`;

  it('accepts {shop}#{orderId}#{lineItemGid}#{random_hash}', () => {
    expect(idempotencyKeyProblem(KEY)).toBeNull();
  });

  it.each([
    [undefined, /required/],
    ['', /required/],
    ['abc', /has 1 part\(s\)/],
    [`acme.myshopify.com#gid://shopify/Order/5001#${LI1}`, /has 3 part\(s\)/],
    [`acme shop#gid://shopify/Order/5001#${LI1}#a1b2c3d4e5f6`, /shop/],
    [`acme.myshopify.com#5001#${LI1}#a1b2c3d4e5f6`, /orderId/],
    ['acme.myshopify.com#gid://shopify/Order/5001#111#a1b2c3d4e5f6', /lineItemGid/],
    [`acme.myshopify.com#gid://shopify/Order/5001#${LI1}#short`, /random_hash/],
    [`acme.myshopify.com#gid://shopify/Order/5001#${LI1}#has space!`, /random_hash/],
  ])('refuses %j', (key, problem) => {
    expect(idempotencyKeyProblem(key)).toMatch(problem);
  });

  it('with the order, refuses a key of another shop, order or line item', () => {
    const ctx = parseOrderForm(body(), OPTS).externalContext;
    expect(idempotencyKeyProblem(KEY.replace('acme.', 'ACME.'), ctx)).toBeNull();
    expect(idempotencyKeyProblem(KEY.replace('acme', 'other'), ctx)).toMatch(
      /differs from externalContext.shop/,
    );
    expect(idempotencyKeyProblem(KEY.replace('5001', '5002'), ctx)).toMatch(
      /differs from externalContext.orderId/,
    );
    expect(idempotencyKeyProblem(KEY.replace('111', '999'), ctx)).toMatch(
      /not one of externalContext.lineItems/,
    );
  });
});
