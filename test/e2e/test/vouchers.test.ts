// Discount vouchers (issue 4; spec: Resources › Discount voucher, States › Discount voucher
// status, Endpoints › Discount vouchers, Errors › Voucher errors, Limits) through the real
// gateway and the real vouchers process: every rule named after its guarantee, the races
// over HTTP, the events on NATS, and the outbox surviving a kill between commit and publish.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectBus, newId, randomBase62, type Bus, type EventEnvelope } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import net from 'node:net';
import pg from 'pg';
import { startTestStack, type Reply, type TestStack } from '../src/index.js';

let stack: TestStack;
let bus: Bus;
/** Every event the vouchers service published, in arrival order (core subscription). */
const events: { subject: string; event: EventEnvelope }[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  bus = await connectBus(stack.nats.url, 'e2e-vouchers');
  bus.nc.subscribe('hallmark.vouchers.>', {
    callback: (err, msg) => {
      if (!err) events.push({ subject: msg.subject, event: msg.json<EventEnvelope>() });
    },
  });
  await bus.nc.flush();
}, 120_000);

afterAll(async () => {
  await bus?.close();
  await stack?.close();
}, 60_000);

// ---------------------------------------------------------------------------------------
// Helpers

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const newCode = (prefix = 'V') => `${prefix}${randomBase62(12)}`;
const newOrder = () => `order_${randomBase62(10)}`;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

interface KeyBody {
  type?: 'production' | 'test';
  permissions?: string[];
  rateLimit?: number;
}

/** Issues an API key with the enterprise owner's session; returns its id and secret. */
async function issueKey(session: string, body: KeyBody = {}): Promise<{ id: string; key: string }> {
  const res = await stack.call('POST', '/api/v1/api-keys', {
    auth: session,
    body: { name: 'vouchers e2e', type: 'production', permissions: ['transactions.*'], ...body },
  });
  if (res.status !== 201) throw new Error(`creating a key failed: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

interface Tenant {
  ent: string;
  session: string;
  /** A live (production) key with transactions.* */
  key: string;
  keyId: string;
}

/** A fresh enterprise with its own live key (own rate-limit budget, own voucher list). */
async function tenant(): Promise<Tenant> {
  const ent = newId('enterprise');
  const session = await stack.token({ ent, role: 'owner' });
  const { id, key } = await issueKey(session);
  return { ent, session, key, keyId: id };
}

const create = (key: string, body: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/vouchers', { auth: key, body });

/** Creates a voucher (201 expected) and returns its body. */
async function voucher(key: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await create(key, { code: newCode(), type: 'percentage', value: 10, ...body });
  if (res.status !== 201) throw new Error(`creating a voucher failed: ${res.status} ${res.text}`);
  return res.body;
}

const getVoucher = (key: string, id: string) => stack.call('GET', `/api/v1/vouchers/${id}`, { auth: key });
const patch = (key: string, id: string, body: Record<string, unknown>) =>
  stack.call('PATCH', `/api/v1/vouchers/${id}`, { auth: key, body });
const redeem = (key: string, body: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/vouchers/redeem', { auth: key, body: { amount: 1000, ...body } });
const validate = (key: string, body: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/vouchers/validate', { auth: key, body: { amount: 1000, ...body } });
const rollback = (key: string, id: string, orderId: string) =>
  stack.call('POST', `/api/v1/vouchers/${id}/redemptions/${encodeURIComponent(orderId)}/rollback`, {
    auth: key,
  });

/** The status, error code and (when given) param of a reply, for one readable assertion. */
function expectError(res: Reply, status: number, code: string, param?: string): any {
  const e = res.body?.error ?? {};
  expect({ status: res.status, code: e.code, ...(param !== undefined ? { param: e.param } : {}) }).toEqual({
    status,
    code,
    ...(param !== undefined ? { param } : {}),
  });
  expect(e.request_id).toMatch(/^req_/);
  expect(typeof e.message).toBe('string');
  return e;
}

/** Events on the plain subscription matching `pred`. */
const seen = (pred: (e: EventEnvelope, subject: string) => boolean) =>
  events.filter((x) => pred(x.event, x.subject)).map((x) => x.event);

const txnEvent = (type: string, pred: (obj: any) => boolean) =>
  seen((e) => e.type === type && pred((e.data as any).object));

// ---------------------------------------------------------------------------------------

describe('POST /api/v1/vouchers (create)', () => {
  it('creates an active voucher: 201 with the spec fields, uses_remaining = max_uses', async () => {
    const t = await tenant();
    const code = newCode('Spring');
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const before = Date.now();
    const res = await create(t.key, {
      code,
      type: 'percentage',
      value: 15,
      max_uses: 10,
      expires_at: expiresAt,
      description: 'Spring sale',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      // the spec's fields
      id: expect.stringMatching(/^vouch_[0-9A-Za-z]+$/),
      code,
      type: 'percentage',
      value: 15,
      status: 'active',
      uses_remaining: 10,
      max_uses: 10,
      expires_at: expiresAt,
      created_at: expect.stringMatching(ISO_UTC),
      description: 'Spring sale',
      // the service's documented extensions (services/vouchers/README.md)
      updated_at: expect.stringMatching(ISO_UTC),
      currency: null,
      max_uses_per_customer: null,
      times_used: 0,
      livemode: true,
    });
    const created = Date.parse(res.body.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 5_000);
    expect(created).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it.each([
    ['omitted', {}],
    ['null', { max_uses: null }],
  ])('max_uses %s means unlimited: max_uses and uses_remaining are null', async (_, extra) => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'fixed_amount', value: 500, ...extra });
    expect(v).toMatchObject({ max_uses: null, uses_remaining: null, expires_at: null, description: null });
  });

  it('stores the code as given (case kept) and accepts the boundaries: 4 and 32 characters, 1 and 100 %', async () => {
    const t = await tenant();
    const four = `Ab${randomBase62(2)}`;
    const thirtyTwo = `Zz${randomBase62(30)}`;
    expect((await voucher(t.key, { code: four, value: 1 })).code).toBe(four);
    expect((await voucher(t.key, { code: thirtyTwo, value: 100 })).code).toBe(thirtyTwo);
  });

  const past = () => new Date(Date.now() - 60_000).toISOString();
  it.each<[string, () => Record<string, unknown>, string, string]>([
    ['code shorter than 4 characters', () => ({ code: 'Ab1' }), 'parameter_invalid', 'code'],
    ['code longer than 32 characters', () => ({ code: 'A'.repeat(33) }), 'parameter_invalid', 'code'],
    ['code with a hyphen', () => ({ code: 'SAVE-10' }), 'parameter_invalid', 'code'],
    ['code with a space', () => ({ code: 'SAVE 10' }), 'parameter_invalid', 'code'],
    ['code with non-ASCII letters', () => ({ code: 'ÉTÉ2025' }), 'parameter_invalid', 'code'],
    ['code missing', () => ({ code: undefined }), 'parameter_missing', 'code'],
    ['type unknown', () => ({ type: 'bogo' }), 'parameter_invalid', 'type'],
    ['type missing', () => ({ type: undefined }), 'parameter_missing', 'type'],
    ['percentage value 0', () => ({ value: 0 }), 'parameter_invalid', 'value'],
    ['percentage value 101', () => ({ value: 101 }), 'parameter_invalid', 'value'],
    ['percentage value with three decimals', () => ({ value: 12.345 }), 'parameter_invalid', 'value'],
    [
      'fixed_amount value fractional',
      () => ({ type: 'fixed_amount', value: 9.5 }),
      'parameter_invalid',
      'value',
    ],
    ['fixed_amount value 0', () => ({ type: 'fixed_amount', value: 0 }), 'parameter_invalid', 'value'],
    [
      'fixed_amount value negative',
      () => ({ type: 'fixed_amount', value: -100 }),
      'parameter_invalid',
      'value',
    ],
    ['value missing', () => ({ value: undefined }), 'parameter_missing', 'value'],
    ['max_uses 0', () => ({ max_uses: 0 }), 'parameter_invalid', 'max_uses'],
    ['max_uses negative', () => ({ max_uses: -3 }), 'parameter_invalid', 'max_uses'],
    ['max_uses fractional', () => ({ max_uses: 1.5 }), 'parameter_invalid', 'max_uses'],
    ['max_uses not a number', () => ({ max_uses: 'many' }), 'parameter_invalid', 'max_uses'],
    ['expires_at in the past', () => ({ expires_at: past() }), 'parameter_invalid', 'expires_at'],
    ['expires_at not a date', () => ({ expires_at: 'next week' }), 'parameter_invalid', 'expires_at'],
    [
      'expires_at without a time zone',
      () => ({ expires_at: '2099-01-01T00:00:00' }),
      'parameter_invalid',
      'expires_at',
    ],
    [
      'expires_at an impossible date',
      () => ({ expires_at: '2099-02-30T00:00:00Z' }),
      'parameter_invalid',
      'expires_at',
    ],
  ])('refuses %s: 400 in the envelope naming the param', async (_, body, code, param) => {
    const t = await tenant();
    const res = await create(t.key, { code: newCode(), type: 'percentage', value: 10, ...body() });
    const e = expectError(res, 400, code, param);
    expect(e.type).toBe('invalid_request_error');
    // nothing was created
    const list = await stack.call('GET', '/api/v1/vouchers', { auth: t.key });
    expect(list.body.pagination.total).toBe(0);
  });

  it('a duplicate code, in any letter case, is 409 voucher_code_exists; the first voucher is untouched', async () => {
    const t = await tenant();
    const first = await voucher(t.key, { code: 'Summer2025Sale' });
    for (const code of ['Summer2025Sale', 'SUMMER2025SALE', 'summer2025sale']) {
      const res = await create(t.key, { code, type: 'fixed_amount', value: 100 });
      const e = expectError(res, 409, 'voucher_code_exists', 'code');
      expect(e.type).toBe('resource_error');
    }
    expect((await getVoucher(t.key, first.id)).body).toEqual(first);
  });

  it('codes are unique per enterprise and mode: another enterprise and test mode may reuse one', async () => {
    const a = await tenant();
    const b = await tenant();
    const code = newCode('Shared');
    await voucher(a.key, { code });
    expect((await create(b.key, { code, type: 'percentage', value: 5 })).status).toBe(201);
    const testKey = await issueKey(a.session, { type: 'test' });
    const inTest = await create(testKey.key, { code: code.toLowerCase(), type: 'percentage', value: 5 });
    expect(inTest.status).toBe(201);
    expect(inTest.body.livemode).toBe(false);
  });
});

describe('GET /api/v1/vouchers (list) and GET /api/v1/vouchers/{id}', () => {
  let t: Tenant;
  let made: any[]; // oldest first

  beforeAll(async () => {
    t = await tenant();
    made = [];
    for (let i = 0; i < 5; i++) made.push(await voucher(t.key, { value: 10 + i }));
    const res = await patch(t.key, made[1].id, { status: 'inactive' });
    expect(res.status).toBe(200);
    made[1] = res.body;
  }, 30_000);

  const list = (query: string) => stack.call('GET', `/api/v1/vouchers${query}`, { auth: t.key });
  const ids = (res: Reply) => res.body.vouchers.map((v: any) => v.id);

  it('pages newest first with pagination {page, limit, total, total_pages}', async () => {
    const newestFirst = [...made].reverse().map((v) => v.id);
    const p1 = await list('?page=1&limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.pagination).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(ids(p1)).toEqual(newestFirst.slice(0, 2));
    const p3 = await list('?page=3&limit=2');
    expect(p3.body.pagination).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3 });
    expect(ids(p3)).toEqual(newestFirst.slice(4));
    const beyond = await list('?page=4&limit=2');
    expect(beyond.body).toEqual({
      vouchers: [],
      pagination: { page: 4, limit: 2, total: 5, total_pages: 3 },
    });
  });

  it('defaults to page 1, limit 20; list items are the same objects as GET', async () => {
    const res = await list('');
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 5, total_pages: 1 });
    expect(res.body.vouchers).toEqual([...made].reverse());
    expect((await getVoucher(t.key, made[0].id)).body).toEqual(made[0]);
  });

  it('filters by status', async () => {
    const inactive = await list('?status=inactive');
    expect(ids(inactive)).toEqual([made[1].id]);
    expect(inactive.body.pagination).toEqual({ page: 1, limit: 20, total: 1, total_pages: 1 });
    const active = await list('?status=active&limit=3');
    expect(active.body.pagination).toEqual({ page: 1, limit: 3, total: 4, total_pages: 2 });
    expect((await list('?status=used')).body.pagination.total).toBe(0);
  });

  it.each([
    ['limit above 100', '?limit=101', 'limit'],
    ['limit 0', '?limit=0', 'limit'],
    ['page 0', '?page=0', 'page'],
    ['an unknown status', '?status=gone', 'status'],
    ['an unknown parameter', '?colour=red', 'colour'],
  ])('refuses %s with 400 naming the param', async (_, query, param) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  it('limit 100 is accepted', async () => {
    expect((await list('?limit=100')).body.pagination.limit).toBe(100);
  });

  it.each([
    ['an unknown voucher id', () => `vouch_${randomBase62(24)}`],
    ['a malformed id', () => 'not-a-voucher'],
  ])('GET of %s is 404 resource_not_found', async (_, id) => {
    const e = expectError(await getVoucher(t.key, id()), 404, 'resource_not_found');
    expect(e.type).toBe('resource_error');
  });
});

describe('PATCH and DELETE /api/v1/vouchers/{id}', () => {
  it('status inactive: the voucher reads inactive and redeem is 422 voucher_inactive; active again redeems', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 5 });
    const res = await patch(t.key, v.id, { status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: v.id, status: 'inactive', uses_remaining: 5 });
    expect((await getVoucher(t.key, v.id)).body.status).toBe('inactive');
    const refused = expectError(
      await redeem(t.key, { code: v.code, order_id: newOrder() }),
      422,
      'voucher_inactive',
    );
    expect(refused.type).toBe('invalid_request_error');
    expectError(await validate(t.key, { code: v.code, order_id: newOrder() }), 422, 'voucher_inactive');
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(0);

    expect((await patch(t.key, v.id, { status: 'active' })).body.status).toBe('active');
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
  });

  it('max_uses lowered to or below the uses made moves the voucher to used (uses_remaining 0)', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 5 });
    for (let i = 0; i < 3; i++)
      expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    const res = await patch(t.key, v.id, { max_uses: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'used', max_uses: 2, uses_remaining: 0, times_used: 3 });
    expectError(await redeem(t.key, { code: v.code, order_id: newOrder() }), 422, 'voucher_max_uses_reached');
    // Raising it again frees uses; null makes it unlimited.
    expect((await patch(t.key, v.id, { max_uses: 4 })).body).toMatchObject({
      status: 'active',
      uses_remaining: 1,
    });
    expect((await patch(t.key, v.id, { max_uses: null })).body).toMatchObject({
      status: 'active',
      max_uses: null,
      uses_remaining: null,
    });
  });

  it.each([
    ['status used (reached, never set)', { status: 'used' }, 'status'],
    ['status expired (reached, never set)', { status: 'expired' }, 'status'],
    ['max_uses 0', { max_uses: 0 }, 'max_uses'],
    ['an unknown field', { code: 'NEWCODE1' }, 'code'],
  ])('refuses %s with 400 naming the param', async (_, body, param) => {
    const t = await tenant();
    const v = await voucher(t.key);
    const res = await patch(t.key, v.id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
    expect((await getVoucher(t.key, v.id)).body).toEqual(v);
  });

  it('PATCH of an unknown voucher is 404', async () => {
    const t = await tenant();
    expectError(
      await patch(t.key, `vouch_${randomBase62(24)}`, { status: 'inactive' }),
      404,
      'resource_not_found',
    );
  });

  it('DELETE removes the voucher permanently: then GET, DELETE and redeem are 404 and the code is free', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 3 });
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    const del = await stack.call('DELETE', `/api/v1/vouchers/${v.id}`, { auth: t.key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: v.id, deleted: true });
    expectError(await getVoucher(t.key, v.id), 404, 'resource_not_found');
    expectError(
      await stack.call('DELETE', `/api/v1/vouchers/${v.id}`, { auth: t.key }),
      404,
      'resource_not_found',
    );
    expectError(await redeem(t.key, { code: v.code, order_id: newOrder() }), 404, 'voucher_not_found');
    expect((await stack.call('GET', '/api/v1/vouchers', { auth: t.key })).body.pagination.total).toBe(0);
    // The code can be used again: a new voucher, with no uses carried over.
    const again = await voucher(t.key, { code: v.code, max_uses: 3 });
    expect(again.id).not.toBe(v.id);
    expect(again.uses_remaining).toBe(3);
  });
});

describe('POST /api/v1/vouchers/redeem', () => {
  it.each<[string, number, number, number]>([
    // [type, value, amount, expected discount]
    ['percentage', 15, 999, 150], // 149.85 → 150
    ['percentage', 10, 125, 13], // 12.5 → 13 (half-up)
    ['percentage', 10, 124, 12], // 12.4 → 12
    ['percentage', 33, 150, 50], // 49.5 → 50
    ['percentage', 1, 49, 0], // 0.49 → 0
    ['percentage', 1, 50, 1], // 0.5 → 1
    ['percentage', 100, 4321, 4321],
    ['percentage', 12.5, 999, 125], // 124.875 → 125: a percentage to the hundredth
    ['percentage', 33.33, 300, 100], // 99.99 → 100
    ['fixed_amount', 500, 2000, 500],
    ['fixed_amount', 500, 500, 500],
    ['fixed_amount', 500, 300, 300], // never more than the order
  ])(
    '%s %i on %i applies %i (percentages round half-up; fixed capped at the amount)',
    async (type, value, amount, discount) => {
      const t = await tenant();
      const v = await voucher(t.key, { type, value, max_uses: 3 });
      const orderId = newOrder();
      const res = await redeem(t.key, { code: v.code, order_id: orderId, amount });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        voucher: { id: v.id, code: v.code, type, value },
        discount_applied: discount,
        original_amount: amount,
        final_amount: amount - discount,
        // documented extensions
        currency: 'USD',
        order_id: orderId,
        transaction_id: expect.stringMatching(/^txn_/),
        redeemed_at: expect.stringMatching(ISO_UTC),
        replayed: false,
      });
      expect((await getVoucher(t.key, v.id)).body).toMatchObject({
        status: 'active',
        uses_remaining: 2,
        times_used: 1,
      });
    },
  );

  it('the spec’s body {code, order_id} is accepted: a fixed_amount voucher’s discount is its value, the amounts it cannot know are null', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'fixed_amount', value: 500, max_uses: 3 });
    const orderId = newOrder();
    const body = { code: v.code, order_id: orderId };
    const dry = await stack.call('POST', '/api/v1/vouchers/validate', { auth: t.key, body });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ discount_applied: 500, original_amount: null, final_amount: null });
    const res = await stack.call('POST', '/api/v1/vouchers/redeem', { auth: t.key, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      voucher: { id: v.id, type: 'fixed_amount', value: 500 },
      discount_applied: 500,
      original_amount: null,
      final_amount: null,
      transaction_id: expect.stringMatching(/^txn_/),
      replayed: false,
    });
    // A replay of the same body is the stored answer; the same order with an amount is another request.
    const again = await stack.call('POST', '/api/v1/vouchers/redeem', { auth: t.key, body });
    expect(again.body).toMatchObject({
      replayed: true,
      discount_applied: 500,
      transaction_id: res.body.transaction_id,
    });
    expectError(await redeem(t.key, { ...body, amount: 1000 }), 409, 'resource_already_exists', 'order_id');
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ times_used: 1, uses_remaining: 2 });
  });

  it('a percentage voucher redeemed without an amount records the use with discount_applied, original_amount and final_amount null (the caller applies value %)', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'percentage', value: 12.5, max_uses: 3 });
    const res = await stack.call('POST', '/api/v1/vouchers/redeem', {
      auth: t.key,
      body: { code: v.code, order_id: newOrder() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      voucher: { id: v.id, type: 'percentage', value: 12.5 },
      discount_applied: null,
      original_amount: null,
      final_amount: null,
      currency: 'USD',
      transaction_id: expect.stringMatching(/^txn_/),
    });
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({
      value: 12.5,
      times_used: 1,
      uses_remaining: 2,
    });
  });

  it('looks the code up case-insensitively and answers with the code as stored', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { code: 'MixedCase42' });
    const res = await redeem(t.key, { code: 'mixedcase42', order_id: newOrder() });
    expect(res.status).toBe(200);
    expect(res.body.voucher).toMatchObject({ id: v.id, code: 'MixedCase42' });
  });

  it('an unknown code is 404 voucher_not_found', async () => {
    const t = await tenant();
    const e = expectError(
      await redeem(t.key, { code: 'NoSuchCode1', order_id: newOrder() }),
      404,
      'voucher_not_found',
    );
    expect(e.type).toBe('resource_error');
    expectError(
      await validate(t.key, { code: 'NoSuchCode1', order_id: newOrder() }),
      404,
      'voucher_not_found',
    );
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['amount 0', { amount: 0 }, 'parameter_invalid', 'amount'],
    ['amount fractional', { amount: 10.5 }, 'parameter_invalid', 'amount'],
    ['order_id missing', { order_id: undefined }, 'parameter_missing', 'order_id'],
    ['code missing', { code: undefined }, 'parameter_missing', 'code'],
    ['currency not three letters', { currency: 'EURO' }, 'parameter_invalid', 'currency'],
  ])('refuses %s with 400 naming the param, consuming nothing', async (_, body, code, param) => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 2 });
    const res = await stack.call('POST', '/api/v1/vouchers/redeem', {
      auth: t.key,
      body: { code: v.code, order_id: newOrder(), amount: 1000, ...body },
    });
    expectError(res, 400, code, param);
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(0);
  });

  it('a voucher bound to a currency refuses orders in another (400 on currency); the default is USD', async () => {
    const t = await tenant();
    const eur = await voucher(t.key, { type: 'fixed_amount', value: 100, currency: 'EUR' });
    expectError(
      await redeem(t.key, { code: eur.code, order_id: newOrder(), currency: 'USD' }),
      400,
      'parameter_invalid',
      'currency',
    );
    const ok = await redeem(t.key, { code: eur.code, order_id: newOrder() });
    expect(ok.body.currency).toBe('EUR');
    const plain = await voucher(t.key);
    expect((await redeem(t.key, { code: plain.code, order_id: newOrder() })).body.currency).toBe('USD');
    expect(
      (await redeem(t.key, { code: plain.code, order_id: newOrder(), currency: 'gbp' })).body.currency,
    ).toBe('GBP');
  });

  it('an expired voucher reads expired at once and refuses with 422 voucher_expired', async () => {
    const t = await tenant();
    const expiresAt = new Date(Date.now() + 2_000);
    const v = await voucher(t.key, { max_uses: 10, expires_at: expiresAt.toISOString() });
    expect(v.status).toBe('active');
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 300);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'expired', times_used: 1 });
    const e = expectError(
      await redeem(t.key, { code: v.code, order_id: newOrder() }),
      422,
      'voucher_expired',
    );
    expect(e.type).toBe('invalid_request_error');
    expectError(await validate(t.key, { code: v.code, order_id: newOrder() }), 422, 'voucher_expired');
    const expired = await stack.call('GET', '/api/v1/vouchers?status=expired', { auth: t.key });
    expect(expired.body.vouchers.map((x: any) => x.id)).toEqual([v.id]);
    expect(
      (await stack.call('GET', '/api/v1/vouchers?status=active', { auth: t.key })).body.pagination.total,
    ).toBe(0);
    // Reactivation cannot bring it back.
    expectError(await patch(t.key, v.id, { status: 'active' }), 422, 'voucher_expired');
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(1);
  }, 15_000);

  it('uses reaching max_uses move the voucher to used; the next redeem is 422 voucher_max_uses_reached', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 2 });
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'active', uses_remaining: 1 });
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({
      status: 'used',
      uses_remaining: 0,
      times_used: 2,
    });
    const e = expectError(
      await redeem(t.key, { code: v.code, order_id: newOrder() }),
      422,
      'voucher_max_uses_reached',
    );
    expect(e.type).toBe('invalid_request_error');
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(2);
  });

  it('replaying an order returns the original result and consumes nothing, even once the voucher is used up', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'percentage', value: 25, max_uses: 1 });
    const orderId = newOrder();
    const first = await redeem(t.key, { code: v.code, order_id: orderId, amount: 1999 });
    expect(first.status).toBe(200);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'used', times_used: 1 });
    for (let i = 0; i < 3; i++) {
      const again = await redeem(t.key, { code: v.code, order_id: orderId, amount: 1999 });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...first.body, replayed: true });
    }
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({
      status: 'used',
      times_used: 1,
      uses_remaining: 0,
    });
    // The same order with another amount is a conflict, not a second redemption.
    expectError(
      await redeem(t.key, { code: v.code, order_id: orderId, amount: 2500 }),
      409,
      'resource_already_exists',
      'order_id',
    );
  });

  it('per-customer limit: customer_id required; a customer over the limit is 422 naming customer_id', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses_per_customer: 1 });
    expectError(
      await redeem(t.key, { code: v.code, order_id: newOrder() }),
      400,
      'parameter_missing',
      'customer_id',
    );
    expect((await redeem(t.key, { code: v.code, order_id: newOrder(), customer_id: 'cus_a' })).status).toBe(
      200,
    );
    expectError(
      await redeem(t.key, { code: v.code, order_id: newOrder(), customer_id: 'cus_a' }),
      422,
      'voucher_max_uses_reached',
      'customer_id',
    );
    expect((await redeem(t.key, { code: v.code, order_id: newOrder(), customer_id: 'cus_b' })).status).toBe(
      200,
    );
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(2);
  });
});

describe('POST /api/v1/vouchers/validate (dry run)', () => {
  it('answers exactly as redeem would and consumes nothing', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'percentage', value: 10, max_uses: 1 });
    const orderId = newOrder();
    const dry = await validate(t.key, { code: v.code, order_id: orderId, amount: 125 });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      success: true,
      voucher: { id: v.id, code: v.code, type: 'percentage', value: 10 },
      discount_applied: 13,
      original_amount: 125,
      final_amount: 112,
      currency: 'USD',
      order_id: orderId,
      transaction_id: null,
      redeemed_at: null,
      replayed: false,
    });
    for (let i = 0; i < 3; i++) await validate(t.key, { code: v.code, order_id: newOrder() });
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({
      status: 'active',
      times_used: 0,
      uses_remaining: 1,
    });

    const real = await redeem(t.key, { code: v.code, order_id: orderId, amount: 125 });
    expect(real.body).toEqual({
      ...dry.body,
      transaction_id: expect.stringMatching(/^txn_/),
      redeemed_at: expect.stringMatching(ISO_UTC),
    });
    // After it: the order's stored result, and the refusal any other order would get.
    expect((await validate(t.key, { code: v.code, order_id: orderId, amount: 125 })).body).toEqual({
      ...real.body,
      replayed: true,
    });
    expectError(
      await validate(t.key, { code: v.code, order_id: newOrder() }),
      422,
      'voucher_max_uses_reached',
    );
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(1);
  });
});

describe('POST /api/v1/vouchers/{id}/redemptions/{order_id}/rollback', () => {
  it('gives the use back once: a used voucher is active again, a second call changes nothing', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 1 });
    const orderId = newOrder();
    const redeemed = await redeem(t.key, { code: v.code, order_id: orderId });
    expect((await getVoucher(t.key, v.id)).body.status).toBe('used');

    const res = await rollback(t.key, v.id, orderId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      voucher: { id: v.id, status: 'active', uses_remaining: 1, times_used: 0 },
      order_id: orderId,
      transaction_id: redeemed.body.transaction_id,
      rolled_back_at: expect.stringMatching(ISO_UTC),
      already_rolled_back: false,
    });
    const second = await rollback(t.key, v.id, orderId);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      already_rolled_back: true,
      voucher: { uses_remaining: 1, times_used: 0 },
    });

    // The freed use can be taken by another order (or the same order again, as a new transaction).
    const again = await redeem(t.key, { code: v.code, order_id: orderId });
    expect(again.status).toBe(200);
    expect(again.body.replayed).toBe(false);
    expect(again.body.transaction_id).not.toBe(redeemed.body.transaction_id);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'used', times_used: 1 });
  });

  it('an order that never redeemed is 404', async () => {
    const t = await tenant();
    const v = await voucher(t.key);
    const res = await rollback(t.key, v.id, newOrder());
    expect(res.status).toBe(404);
  });
});

describe('scopes, test mode and tenancy', () => {
  it('a key with only transactions.read lists, reads and validates but cannot create, redeem, update or delete', async () => {
    const t = await tenant();
    const v = await voucher(t.key);
    const orderId = newOrder();
    expect((await redeem(t.key, { code: v.code, order_id: orderId })).status).toBe(200);
    const ro = (await issueKey(t.session, { permissions: ['transactions.read'] })).key;

    expect((await stack.call('GET', '/api/v1/vouchers', { auth: ro })).status).toBe(200);
    expect((await getVoucher(ro, v.id)).status).toBe(200);
    expect((await validate(ro, { code: v.code, order_id: newOrder() })).status).toBe(200);

    const refusals: [Reply, string][] = [
      [await create(ro, { code: newCode(), type: 'percentage', value: 5 }), 'transactions.create'],
      [await redeem(ro, { code: v.code, order_id: newOrder() }), 'transactions.create'],
      [await patch(ro, v.id, { status: 'inactive' }), 'transactions.update'],
      [await rollback(ro, v.id, orderId), 'transactions.update'],
      [await stack.call('DELETE', `/api/v1/vouchers/${v.id}`, { auth: ro }), 'transactions.delete'],
    ];
    for (const [res, scope] of refusals) {
      const e = expectError(res, 403, 'insufficient_permissions');
      expect({ type: e.type, required_permission: e.required_permission }).toEqual({
        type: 'permission_error',
        required_permission: scope,
      });
    }
    // Nothing changed.
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'active', times_used: 1 });
    expect((await stack.call('GET', '/api/v1/vouchers', { auth: t.key })).body.pagination.total).toBe(1);
  });

  it('a key with only transactions.create redeems but cannot read', async () => {
    const t = await tenant();
    const v = await voucher(t.key);
    const wo = (await issueKey(t.session, { permissions: ['transactions.create'] })).key;
    expect((await redeem(wo, { code: v.code, order_id: newOrder() })).status).toBe(200);
    const e = expectError(await getVoucher(wo, v.id), 403, 'insufficient_permissions');
    expect(e.required_permission).toBe('transactions.read');
  });

  it('test-mode keys see and redeem only test vouchers; live keys never see test ones (404)', async () => {
    const t = await tenant();
    const testKey = (await issueKey(t.session, { type: 'test' })).key;
    const live = await voucher(t.key, { code: newCode('Live') });
    const test = await voucher(testKey, { code: newCode('Test') });
    expect(test.livemode).toBe(false);

    // live key → test voucher
    expectError(await getVoucher(t.key, test.id), 404, 'resource_not_found');
    expectError(await redeem(t.key, { code: test.code, order_id: newOrder() }), 404, 'voucher_not_found');
    expectError(await patch(t.key, test.id, { status: 'inactive' }), 404, 'resource_not_found');
    expect(
      (await stack.call('GET', '/api/v1/vouchers', { auth: t.key })).body.vouchers.map((x: any) => x.id),
    ).toEqual([live.id]);
    // test key → live voucher
    expectError(await getVoucher(testKey, live.id), 404, 'resource_not_found');
    expectError(await redeem(testKey, { code: live.code, order_id: newOrder() }), 404, 'voucher_not_found');
    expectError(await validate(testKey, { code: live.code, order_id: newOrder() }), 404, 'voucher_not_found');
    expectError(
      await stack.call('DELETE', `/api/v1/vouchers/${live.id}`, { auth: testKey }),
      404,
      'resource_not_found',
    );
    expect(
      (await stack.call('GET', '/api/v1/vouchers', { auth: testKey })).body.vouchers.map((x: any) => x.id),
    ).toEqual([test.id]);
    // each in its own mode works
    expect((await redeem(testKey, { code: test.code, order_id: newOrder() })).status).toBe(200);
    expect((await getVoucher(t.key, live.id)).body).toMatchObject({ status: 'active', times_used: 0 });
    expect((await getVoucher(testKey, test.id)).body).toMatchObject({ times_used: 1 });
  });

  it("another enterprise's voucher is 404 on every endpoint and stays untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const v = await voucher(a.key, { max_uses: 5 });
    const orderId = newOrder();
    expect((await redeem(a.key, { code: v.code, order_id: orderId })).status).toBe(200);

    expectError(await getVoucher(b.key, v.id), 404, 'resource_not_found');
    expectError(await patch(b.key, v.id, { status: 'inactive' }), 404, 'resource_not_found');
    expectError(
      await stack.call('DELETE', `/api/v1/vouchers/${v.id}`, { auth: b.key }),
      404,
      'resource_not_found',
    );
    expectError(await redeem(b.key, { code: v.code, order_id: newOrder() }), 404, 'voucher_not_found');
    expectError(await validate(b.key, { code: v.code, order_id: orderId }), 404, 'voucher_not_found');
    expect((await rollback(b.key, v.id, orderId)).status).toBe(404);
    expect((await stack.call('GET', '/api/v1/vouchers', { auth: b.key })).body.pagination.total).toBe(0);
    expect((await getVoucher(a.key, v.id)).body).toMatchObject({ status: 'active', times_used: 1 });
  });
});

describe('events on NATS (outbox)', () => {
  it('a redemption publishes transaction.created and transaction.completed (voucher_redemption, amount = discount)', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'fixed_amount', value: 250, max_uses: 5 });
    const withCustomer = await redeem(t.key, {
      code: v.code,
      order_id: newOrder(),
      amount: 1000,
      customer_id: 'cus_7',
    });
    const withoutCustomer = await redeem(t.key, { code: v.code, order_id: newOrder(), amount: 200 });
    expect([withCustomer.status, withoutCustomer.status]).toEqual([200, 200]);

    for (const [r, userId, discount] of [
      [withCustomer.body, 'cus_7', 250],
      [withoutCustomer.body, t.keyId, 200], // user_id is the principal's actor (the key) without customer_id
    ] as const) {
      const txnId = r.transaction_id;
      const [created, completed] = await eventually(
        () => {
          const c = txnEvent('transaction.created', (o) => o.id === txnId);
          const d = txnEvent('transaction.completed', (o) => o.id === txnId);
          expect([c.length, d.length]).toEqual([1, 1]);
          return [c[0]!, d[0]!];
        },
        { timeoutMs: 10_000 },
      );
      const object = {
        id: txnId,
        type: 'voucher_redemption',
        amount: discount,
        currency: 'USD',
        user_id: userId,
        description: expect.any(String),
        metadata: expect.objectContaining({ order_id: r.order_id, voucher_id: v.id }),
        created_at: expect.stringMatching(ISO_UTC),
      };
      for (const [e, status] of [
        [created, 'pending'],
        [completed, 'completed'],
      ] as const) {
        expect(e).toMatchObject({ enterprise_id: t.ent, livemode: true, source: 'vouchers' });
        expect(e.id).toEqual(expect.any(String));
        expect((e.data as any).object).toEqual({ ...object, status });
      }
    }
    const subjects = events.filter(
      (x) => (x.event.data as any)?.object?.id === withCustomer.body.transaction_id,
    );
    expect(subjects.map((x) => x.subject).sort()).toEqual([
      'hallmark.vouchers.transaction.completed',
      'hallmark.vouchers.transaction.created',
    ]);
    // the internal event too
    await eventually(() =>
      expect(
        seen(
          (e) =>
            e.type === 'voucher.redeemed' &&
            (e.data as any).object.transaction_id === withCustomer.body.transaction_id,
        ),
      ).toHaveLength(1),
    );
  });

  it('a refused redemption of an existing voucher publishes transaction.failed; an unknown code publishes nothing', async () => {
    const t = await tenant();
    const v = await voucher(t.key, { max_uses: 1 });
    expect((await redeem(t.key, { code: v.code, order_id: newOrder() })).status).toBe(200);
    const ghostOrder = newOrder();
    expectError(
      await redeem(t.key, { code: 'NoSuchVoucher9', order_id: ghostOrder }),
      404,
      'voucher_not_found',
    );
    const refusedOrder = newOrder();
    expectError(
      await redeem(t.key, { code: v.code, order_id: refusedOrder, amount: 800 }),
      422,
      'voucher_max_uses_reached',
    );

    const failed = await eventually(
      () => {
        const f = txnEvent('transaction.failed', (o) => o.metadata?.order_id === refusedOrder);
        expect(f).toHaveLength(1);
        return f[0]!;
      },
      { timeoutMs: 10_000 },
    );
    expect(failed).toMatchObject({ enterprise_id: t.ent, livemode: true });
    expect((failed.data as any).object).toMatchObject({
      id: expect.stringMatching(/^txn_/),
      type: 'voucher_redemption',
      status: 'failed',
      amount: 80,
      metadata: { order_id: refusedOrder, voucher_id: v.id, failure_code: 'voucher_max_uses_reached' },
    });
    // The relay publishes in commit order: had the unknown code produced an event, it would be here by now.
    expect(seen((e) => (e.data as any)?.object?.metadata?.order_id === ghostOrder)).toEqual([]);
    // A refused redemption never publishes created/completed.
    expect(
      seen(
        (e) =>
          (e.type === 'transaction.created' || e.type === 'transaction.completed') &&
          (e.data as any).object.metadata?.order_id === refusedOrder,
      ),
    ).toEqual([]);
  });

  it('test-mode redemptions publish events with livemode false', async () => {
    const t = await tenant();
    const testKey = (await issueKey(t.session, { type: 'test' })).key;
    const v = await voucher(testKey);
    const r = await redeem(testKey, { code: v.code, order_id: newOrder() });
    const completed = await eventually(() => {
      const c = txnEvent('transaction.completed', (o) => o.id === r.body.transaction_id);
      expect(c).toHaveLength(1);
      return c[0]!;
    });
    expect(completed).toMatchObject({ enterprise_id: t.ent, livemode: false });
  });
});

describe('rate limits (spec › Limits: voucher create and update 50 per minute)', () => {
  it('the 51st create within a minute with one key is 429 with retry_after; another key is unaffected', async () => {
    const t = await tenant();
    const replies = await Promise.all(
      Array.from({ length: 51 }, () => create(t.key, { code: newCode(), type: 'percentage', value: 5 })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    const e = expectError(limited[0]!, 429, 'rate_limit_exceeded');
    expect(e.type).toBe('rate_limit_error');
    expect(Number.isInteger(e.retry_after)).toBe(true);
    expect(e.retry_after).toBeGreaterThanOrEqual(1);
    expect(e.retry_after).toBeLessThanOrEqual(60);
    expect(limited[0]!.headers.get('x-ratelimit-limit')).toBe('50');
    expect(limited[0]!.headers.get('x-ratelimit-remaining')).toBe('0');

    const other = (await issueKey(t.session)).key;
    const ok = await create(other, { code: newCode(), type: 'percentage', value: 5 });
    expect(ok.status).toBe(201);
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBeLessThan(50);
  }, 30_000);
});

describe('races through the gateway', () => {
  /** Keys of one enterprise; the voucher_redeem group (200/min) and the burst (100/s) are per key. */
  async function keysOf(t: Tenant, n: number): Promise<string[]> {
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push((await issueKey(t.session, { rateLimit: 100_000 })).key);
    return keys;
  }

  it('300 concurrent redeems of distinct orders against max_uses 50: exactly 50 succeed, 250 are max_uses_reached', async () => {
    const t = await tenant();
    const keys = await keysOf(t, 4); // 75 requests per key
    const v = await voucher(t.key, { type: 'fixed_amount', value: 100, max_uses: 50 });
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        redeem(keys[i % keys.length]!, { code: v.code, order_id: `race-${i}` }),
      ),
    );
    const byStatus = new Map<string, number>();
    for (const r of replies) {
      const k = r.status === 200 ? '200' : `${r.status} ${r.body?.error?.code}`;
      byStatus.set(k, (byStatus.get(k) ?? 0) + 1);
    }
    expect(Object.fromEntries(byStatus)).toEqual({ '200': 50, '422 voucher_max_uses_reached': 250 });
    const txns = new Set(replies.filter((r) => r.status === 200).map((r) => r.body.transaction_id));
    expect(txns.size).toBe(50);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({
      status: 'used',
      uses_remaining: 0,
      times_used: 50,
    });
    // Events agree: 50 completed transactions, 250 failed ones.
    await eventually(
      () => {
        expect(txnEvent('transaction.completed', (o) => o.metadata?.voucher_id === v.id)).toHaveLength(50);
        expect(txnEvent('transaction.failed', (o) => o.metadata?.voucher_id === v.id)).toHaveLength(250);
      },
      { timeoutMs: 20_000 },
    );
  }, 60_000);

  it('150 concurrent replays of one order consume one use and all answer the same transaction', async () => {
    const t = await tenant();
    const keys = await keysOf(t, 2);
    const v = await voucher(t.key, { max_uses: 10 });
    // Each caller retries a 503/504 as a client does (a replay is safe by design): on a loaded
    // 2-core machine one of 150 queued calls can outwait the gateway's 10 s deadline.
    const replayUntilAnswered = async (key: string) => {
      for (let attempt = 1; ; attempt++) {
        const r = await redeem(key, { code: v.code, order_id: 'the-one-order' });
        if ((r.status !== 503 && r.status !== 504) || attempt === 3) return r;
      }
    };
    const replies = await Promise.all(
      Array.from({ length: 150 }, (_, i) => replayUntilAnswered(keys[i % 2]!)),
    );
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(replies.map((r) => r.body.transaction_id)).size).toBe(1);
    expect(replies.filter((r) => r.body.replayed === false)).toHaveLength(1);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ times_used: 1, uses_remaining: 9 });
  }, 60_000);

  it('no redemption sent after a PATCH to inactive was answered succeeds (redeem storm)', async () => {
    const t = await tenant();
    const keys = await keysOf(t, 5);
    const v = await voucher(t.key); // unlimited
    const sent: { at: number; reply: Promise<Reply> }[] = [];
    let patchedAt = Infinity;
    let afterPatch = 0;
    let i = 0;
    const patchDone = (async () => {
      await sleep(150);
      const res = await patch(t.key, v.id, { status: 'inactive' });
      expect(res.status).toBe(200);
      patchedAt = performance.now();
    })();
    while (afterPatch < 40) {
      const at = performance.now();
      sent.push({ at, reply: redeem(keys[i % keys.length]!, { code: v.code, order_id: `storm-${i}` }) });
      i++;
      if (at > patchedAt) afterPatch++;
      await sleep(2);
    }
    await patchDone;
    const results = await Promise.all(sent.map(async (s) => ({ at: s.at, reply: await s.reply })));
    const late = results.filter((r) => r.at > patchedAt);
    expect(late.length).toBeGreaterThanOrEqual(40);
    expect(new Set(late.map((r) => `${r.reply.status} ${r.reply.body?.error?.code}`))).toEqual(
      new Set(['422 voucher_inactive']),
    );
    const ok = results.filter((r) => r.reply.status === 200).length;
    expect(ok).toBeGreaterThan(0);
    expect(
      results.every((r) => r.reply.status === 200 || r.reply.body?.error?.code === 'voucher_inactive'),
    ).toBe(true);
    expect((await getVoucher(t.key, v.id)).body).toMatchObject({ status: 'inactive', times_used: ok });
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// The outbox: a redemption and its events commit together, so a vouchers process killed
// after the commit but before the event reached JetStream (or before it recorded that it
// had) still delivers the event, once, after a restart.

/**
 * A TCP proxy in front of NATS whose directions can be cut: `up` (client → server) or
 * `down` (server → client). Cut bytes are dropped, never delivered later.
 */
class NatsCutter {
  up = true;
  down = true;
  /** What the clients sent, forwarded and dropped (to see a publish reach the server, or not). */
  forwardedUp = '';
  droppedUp = '';
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(target: URL) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      this.sockets.add(client).add(upstream);
      client.on('data', (d) => {
        if (this.up) {
          this.forwardedUp += d.toString('latin1');
          upstream.write(d);
        } else {
          this.droppedUp += d.toString('latin1');
        }
      });
      upstream.on('data', (d) => {
        if (this.down) client.write(d);
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `nats://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('outbox: killed between commit and publish, the event still arrives once', () => {
  let db: pg.Client;

  beforeAll(async () => {
    const url = new URL(stack.postgres.url);
    url.pathname = `/${stack.prefix}_vouchers`;
    db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
  });

  /** (Re)starts the vouchers process with `natsUrl`; waits until the gateway reaches it again. */
  async function startVouchers(natsUrl: string, key: string): Promise<void> {
    const realUrl = stack.env.NATS_URL!;
    stack.env.NATS_URL = natsUrl; // startService spawns with the stack's env
    try {
      await stack.startService('vouchers');
    } finally {
      stack.env.NATS_URL = realUrl;
    }
    await eventually(
      async () => expect((await stack.call('GET', '/api/v1/vouchers', { auth: key })).status).toBe(200),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  }

  const alive = (proc: { exited: Promise<unknown> }) =>
    Promise.race([proc.exited.then(() => false), sleep(20).then(() => true)]);

  /** Messages in the HALLMARK stream about this transaction, counted per event id. */
  async function storedEventsOf(txnId: string): Promise<string[]> {
    const consumer = await bus.js.consumers.get('HALLMARK', { filter_subjects: 'hallmark.vouchers.>' });
    const byId = new Map<string, { type: string; n: number }>();
    for (;;) {
      let n = 0;
      for await (const m of await consumer.fetch({ max_messages: 500, expires: 1_000 })) {
        n++;
        const e = m.json<EventEnvelope>();
        const o = (e.data as any)?.object;
        if (o?.id === txnId || o?.transaction_id === txnId) {
          byId.set(e.id, { type: e.type, n: (byId.get(e.id)?.n ?? 0) + 1 });
        }
      }
      if (n === 0) break;
    }
    await consumer.delete().catch(() => undefined);
    return [...byId.values()].map((s) => `${s.type} ×${s.n}`).sort();
  }

  /** The outbox rows of this transaction: published or not. */
  const published = async (txnId: string) =>
    (
      await db.query<{ published: boolean }>(
        `SELECT published_at IS NOT NULL AS published FROM outbox
         WHERE payload->'data'->'object'->>'id' = $1 OR payload->'data'->'object'->>'transaction_id' = $1
         ORDER BY seq`,
        [txnId],
      )
    ).rows.map((r) => r.published);

  async function killedAfterCommit(cut: 'up' | 'down'): Promise<void> {
    const t = await tenant();
    const v = await voucher(t.key, { type: 'fixed_amount', value: 300, max_uses: 10 });
    const cutter = new NatsCutter(new URL(stack.nats.url));
    const viaCutter = await cutter.listen();
    let txnId = '';
    try {
      await stack.processes.get('vouchers')!.stop();
      await startVouchers(viaCutter, t.key);
      // Start from a drained outbox (the restarted sweeper may have written events), so the
      // relay's next publish is this redemption's first event.
      await eventually(
        async () =>
          expect(
            (await db.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0].n,
          ).toBe(0),
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      cutter[cut] = false; // from now on the service's publishes (up) or their acks (down) are lost

      const res = await redeem(t.key, { code: v.code, order_id: newOrder(), amount: 1000 });
      expect(res.status).toBe(200); // committed
      txnId = res.body.transaction_id;

      if (cut === 'up') {
        // The relay tried to publish (transaction.created first); the bytes never reached NATS.
        await eventually(() => expect(cutter.droppedUp).toContain(txnId), { timeoutMs: 10_000 });
        await sleep(200);
        expect(cutter.forwardedUp).not.toContain(txnId);
        expect(seen((e) => (e.data as any)?.object?.id === txnId)).toEqual([]);
      } else {
        // The first publish reached JetStream (the plain subscription sees it); its ack never
        // comes back, so the relay (publishing in order, one ack at a time) is stuck on it.
        await eventually(
          () => expect(txnEvent('transaction.created', (o) => o.id === txnId)).toHaveLength(1),
          {
            timeoutMs: 10_000,
          },
        );
      }
      // Not marked published: only the dying process knows it tried.
      expect(await published(txnId)).toEqual([false, false, false]);
      const proc = stack.processes.get('vouchers')!;
      process.kill(proc.pid, 'SIGKILL');
      await proc.exited;
    } finally {
      await cutter.close();
      // Back on the real NATS (the only state where later tests and the relay can work).
      const proc = stack.processes.get('vouchers');
      if (proc && (await alive(proc))) await proc.stop();
      await startVouchers(stack.env.NATS_URL!, t.key);
    }

    // After the restart the relay publishes what was committed…
    await eventually(async () => expect(await published(txnId)).toEqual([true, true, true]), {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    await eventually(
      () => expect(txnEvent('transaction.completed', (o) => o.id === txnId).length).toBeGreaterThanOrEqual(1),
      { timeoutMs: 10_000 },
    );
    if (cut === 'down') {
      // The restarted relay did publish it again (plain subscribers get every publish)…
      expect(txnEvent('transaction.created', (o) => o.id === txnId).length).toBeGreaterThanOrEqual(2);
    }
    // …and the stream holds each of its events exactly once (a re-publish is deduplicated by id).
    expect(await storedEventsOf(txnId)).toEqual([
      'transaction.completed ×1',
      'transaction.created ×1',
      'voucher.redeemed ×1',
    ]);
    // The redemption itself was never in doubt.
    expect((await getVoucher(t.key, v.id)).body.times_used).toBe(1);
  }

  it('the publish never reached NATS: after a restart the event is published, once', async () => {
    await killedAfterCommit('up');
  }, 90_000);

  it('the publish reached JetStream but its ack was lost: the re-publish is deduplicated, once in the stream', async () => {
    await killedAfterCommit('down');
  }, 90_000);
});
