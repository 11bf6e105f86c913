// The contract, exact (issue 13): the deviations a client written from the spec alone
// tripped over, each proved through the real gateway and named after the rule it keeps.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBase62 } from '@hallmark/kit';
import { startTestStack, type Reply, type TestStack } from '../src/index.js';
import { callWithKey, createEnterpriseKey, createKey, errorOf } from '../src/keys.js';

let stack: TestStack;
let owner: string;

beforeAll(async () => {
  stack = await startTestStack();
  owner = await stack.token({ role: 'owner' });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const REQUEST_ID = /^req_/;

/** The error as either surface renders it, with its request id checked. */
function refusal(res: Reply, path: string, status: number) {
  expect({ status: res.status, text: res.text.slice(0, 300) }).toMatchObject({ status });
  const err = errorOf(res, path);
  expect(err.styleProblems).toEqual([]);
  expect(err.requestId).toMatch(REQUEST_ID);
  return err;
}

describe('API keys: expiry is optional for every type, and enterprise keys exist in test mode', () => {
  it('a restricted key without expiresAt is created with expiresAt null (spec: "optional expiry; null when none")', async () => {
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: owner,
      body: { name: 'r', type: 'restricted', permissions: ['reports.read'], rateLimit: 30 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'restricted', expiresAt: null, status: 'active' });
    expect(res.body.key).toMatch(/^pk_restricted_/);
  });

  it('a session in test mode creates a test-mode enterprise key (pk_test_) that sees only test data', async () => {
    const res = await stack.call('POST', '/api/enterprise/api-keys', {
      auth: owner,
      headers: { 'hallmark-mode': 'test' },
      body: { name: 'shop test', scopes: ['bulk:mint'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.apiKey.key).toMatch(/^pk_test_/);
    const jobs = await callWithKey(stack, 'GET', '/api/bulk-mint', res.body.apiKey.key, 'header');
    expect(jobs.status).toBe(200);
    const live = await createEnterpriseKey(stack, owner);
    expect(live.key).toMatch(/^pk_live_/);
  });
});

describe('numbers: out-of-range, non-finite, non-integer and huge values are a 400 naming the field', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createKey(stack, owner, { permissions: ['transactions.*', 'billing.read'] })).key;
  });
  const voucher = (over: Record<string, unknown>) => ({
    code: `N${randomBase62(10)}`,
    type: 'fixed_amount',
    value: 500,
    ...over,
  });

  it.each([
    ['value 1e308', voucher({ value: 1e308 }), 'value'],
    ['value 12.5 (cents are whole)', voucher({ value: 12.5 }), 'value'],
    ['value 0', voucher({ value: 0 }), 'value'],
    ['max_uses 1e300', voucher({ max_uses: 1e300 }), 'max_uses'],
    ['max_uses_per_customer -1', voucher({ max_uses_per_customer: -1 }), 'max_uses_per_customer'],
  ])('voucher create with %s', async (_label, body, param) => {
    const res = await callWithKey(stack, 'POST', '/api/v1/vouchers', key, 'bearer', { body });
    expect(refusal(res, '/api/v1/', 400).param).toBe(param);
  });

  it('voucher create with value 9007199254740993 (past 2^53, as the JSON text says it)', async () => {
    const raw = JSON.stringify(voucher({ value: 1 })).replace('"value":1', '"value":9007199254740993');
    const res = await stack.call('POST', '/api/v1/vouchers', {
      auth: key,
      headers: { 'content-type': 'application/json' },
      raw,
    });
    expect(refusal(res, '/api/v1/', 400).param).toBe('value');
  });

  it.each([
    ['/api/billing/cost-preview/1e999', 'count'],
    ['/api/billing/cost-preview/NaN', 'count'],
    ['/api/billing/cost-preview/2.5', 'count'],
    ['/api/billing/cost-preview/9007199254740993', 'count'],
    ['/api/v1/vouchers?page=1e999', 'page'],
    ['/api/v1/vouchers?limit=1.5', 'limit'],
    ['/api/v1/vouchers?page=9007199254740993', 'page'],
    ['/api/v1/webhooks?page=-1', 'page'],
    ['/api/v1/templates?limit=1e999', 'limit'],
    ['/api/bulk-mint?page=1e400', 'page'],
  ])('GET %s', async (path, param) => {
    const res = await stack.call('GET', path, { auth: owner });
    expect(refusal(res, path, 400).param).toBe(param);
  });

  it.each([
    ['rateLimit 1e308', { rateLimit: 1e308 }],
    ['rateLimit 2.5', { rateLimit: 2.5 }],
  ])('API key create with %s', async (_l, over) => {
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: owner,
      body: { name: 'n', type: 'production', permissions: ['reports.read'], ...over },
    });
    expect(refusal(res, '/api/v1/', 400).param).toBe('rateLimit');
  });

  it('redeem with amount 1e20 is a 400 on amount', async () => {
    const res = await callWithKey(stack, 'POST', '/api/v1/vouchers/redeem', key, 'bearer', {
      body: { code: 'ABCD1234', order_id: 'o1', amount: 1e20 },
    });
    expect(refusal(res, '/api/v1/', 400).param).toBe('amount');
  });
});

describe('framework errors answer in the surface’s error format with a request_id', () => {
  it('a 10,000-character path id is a 414 in the envelope, not Fastify’s own body', async () => {
    const res = await stack.call('GET', `/api/v1/vouchers/${'a'.repeat(10_000)}`, { auth: owner });
    const err = refusal(res, '/api/v1/', 414);
    expect(err.code).toBe('parameter_invalid');
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(res.text).not.toContain('FST_ERR');
    const api = await stack.call('GET', `/api/bulk-mint/${'j'.repeat(10_000)}`, { auth: owner });
    expect(api.body).toMatchObject({ success: false, code: 'parameter_invalid' });
    expect(api.body.request_id).toMatch(REQUEST_ID);
  });

  it('a 300-character path id is a 400 naming the parameter', async () => {
    const res = await stack.call('GET', `/api/v1/vouchers/${'a'.repeat(300)}`, { auth: owner });
    expect(refusal(res, '/api/v1/', 400).param).toBe('voucher_id');
  });

  it('a bad percent-encoding in the path is a 400 in the envelope', async () => {
    const res = await stack.call('GET', '/api/v1/vouchers/%E0%A4%A', { auth: owner });
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBeGreaterThanOrEqual(400);
    errorOf(res, '/api/v1/');
  });
});

describe('Content-Type: a non-JSON body to a JSON endpoint is 400 invalid_content_type', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('%s', async (type) => {
    const res = await stack.call('POST', '/api/v1/vouchers', {
      auth: owner,
      headers: { 'content-type': type },
      raw: '{"code":"ABCD1234","type":"percentage","value":10}',
    });
    expect(refusal(res, '/api/v1/', 400).code).toBe('invalid_content_type');
  });

  it('on the unversioned surface too', async () => {
    const res = await stack.call('POST', '/api/enterprise/api-keys', {
      auth: owner,
      headers: { 'content-type': 'text/plain' },
      raw: '{"name":"x","scopes":["bulk:mint"]}',
    });
    expect(refusal(res, '/api/', 400).code).toBe('invalid_content_type');
  });
});

describe('rate-limit headers report the limit the client configured', () => {
  it('a key with rateLimit 5/min shows X-RateLimit-Limit 5, and 7 within seconds of a PATCH to 7', async () => {
    const k = await createKey(stack, owner, { type: 'production', permissions: ['admin.*'], rateLimit: 5 });
    const first = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset - Date.now() / 1000).toBeGreaterThan(2); // the minute window, not the 1 s burst
    const patched = await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: owner,
      body: { rateLimit: 7 },
    });
    expect(patched.status).toBe(200);
    const deadline = Date.now() + 5_000;
    let limit = '';
    while (Date.now() < deadline) {
      limit =
        (await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).headers.get('x-ratelimit-limit') ?? '';
      if (limit === '7') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(limit).toBe('7');
  });
});

describe('bulk-mint surface details', () => {
  it('GET /api/bulk-mint/template is a 404 pointing at the CSV template, not a 401', async () => {
    const res = await stack.call('GET', '/api/bulk-mint/template');
    const err = refusal(res, '/api/', 404);
    expect(err.code).toBe('resource_not_found');
    expect(err.message).toContain('/api/bulk-mint/template/csv');
  });

  it('the cost preview states its currency as "USD", the form vouchers use', async () => {
    const res = await stack.call('GET', '/api/billing/cost-preview/10', { auth: owner });
    expect(res.status).toBe(200);
    expect(res.body.data.currency).toBe('USD');
  });
});

describe('user ids are the session’s sub', () => {
  it('a key is shared with a colleague once they have signed in (404 before, nothing written); shares and audit logs name users by sub', async () => {
    const ent = `ent_${randomBase62(24)}`;
    const boss = await stack.token({ ent, sub: 'boss-sub', role: 'owner' });
    const k = await createKey(stack, boss, { permissions: ['reports.read'] });
    const shareWithNewcomer = () =>
      stack.call('POST', `/api/v1/api-keys/${k.id}/share`, {
        auth: boss,
        body: { userIds: ['newcomer-sub'], permissions: ['read'] },
      });
    // Keys cannot tell a colleague who never signed in from a typo or a stranger: 404.
    const early = await shareWithNewcomer();
    expect([early.status, early.body.error?.code, early.body.error?.param]).toEqual([
      404,
      'resource_not_found',
      'userIds',
    ]);
    const newcomer = await stack.token({ ent, sub: 'newcomer-sub', role: 'member' });
    expect((await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: newcomer })).status).toBe(404);
    const shared = await shareWithNewcomer();
    expect(shared.status).toBe(200);
    expect(shared.body.shares).toEqual([
      expect.objectContaining({ userId: 'newcomer-sub', level: 'viewer' }),
    ]);
    const seen = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: newcomer });
    expect(seen.status).toBe(200);
    expect(seen.body.accessLevel).toBe('viewer');
    const logs = await stack.call('GET', `/api/v1/api-keys/${k.id}/audit-logs`, { auth: boss });
    const actors = logs.body.logs.filter((l: { action: string }) => l.action !== 'key.used');
    expect(actors.map((l: { userId: string }) => l.userId)).toEqual(['boss-sub', 'boss-sub']);

    // Templates: the owner, grants and grant targets are named by sub too.
    const tpl = await stack.call('POST', '/api/v1/templates', {
      auth: boss,
      body: { name: 'Receipt', type: 'receipt', format: 'html', template: '<p>Hi</p>', variables: [] },
    });
    expect(tpl.status).toBe(201);
    expect(tpl.body.ownerId).toBe('boss-sub');
    const grant = await stack.call('POST', `/api/v1/templates/${tpl.body.id}/access`, {
      auth: boss,
      body: { userIds: ['newcomer-sub'], permissions: ['read'] },
    });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({
      ownerId: 'boss-sub',
      grants: [{ userId: 'newcomer-sub', access: ['read'], grantedBy: 'boss-sub' }],
    });
    expect((await stack.call('GET', `/api/v1/templates/${tpl.body.id}`, { auth: newcomer })).status).toBe(
      200,
    );
  });
});

describe('test and live mode: the 404 of an object in the other mode says so', () => {
  it('a test key asking for a live voucher (and a live key for a test webhook) learns it exists in the other mode', async () => {
    const ent = `ent_${randomBase62(24)}`;
    const boss = await stack.token({ ent, role: 'owner' });
    const live = await createKey(stack, boss, {
      type: 'production',
      permissions: ['transactions.*', 'admin.*'],
    });
    const test = await createKey(stack, boss, { type: 'test', permissions: ['transactions.*', 'admin.*'] });
    const v = await stack.call('POST', '/api/v1/vouchers', {
      auth: live.key,
      body: { code: `L${randomBase62(10)}`, type: 'percentage', value: 10 },
    });
    expect(v.status).toBe(201);
    const asTest = await stack.call('GET', `/api/v1/vouchers/${v.body.id}`, { auth: test.key });
    const err = refusal(asTest, '/api/v1/', 404);
    expect(err.code).toBe('resource_not_found');
    expect(err.message).toBe(
      `No such voucher: '${v.body.id}'; a similar object exists in live mode, but a test mode key was used to make this request.`,
    );
    const unknown = await stack.call('GET', `/api/v1/vouchers/vouch_${'0'.repeat(24)}`, { auth: test.key });
    expect(refusal(unknown, '/api/v1/', 404).message).not.toContain('mode');

    const hook = await stack.call('POST', '/api/v1/webhooks', {
      auth: test.key,
      body: { url: 'https://93.184.216.34/hooks/hallmark', events: ['document.verified'] },
    });
    expect(hook.status).toBe(201);
    const asLive = await stack.call('GET', `/api/v1/webhooks/${hook.body.id}`, { auth: live.key });
    expect(refusal(asLive, '/api/v1/', 404).message).toContain('exists in test mode, but a live mode key');
  });
});

describe('test and live mode: API keys and enterprise webhooks say so too, and only to their own enterprise', () => {
  const HINT = /; a similar object exists in (live|test) mode, but a (test|live) mode key was used/;

  it('a key of the other mode is a 404 naming that mode; another enterprise’s key is a plain 404', async () => {
    const ent = `ent_${randomBase62(24)}`;
    const boss = await stack.token({ ent, role: 'owner' });
    const live = await createKey(stack, boss, { type: 'production', permissions: ['admin.*'] });
    const test = await createKey(stack, boss, { type: 'test', permissions: ['admin.*'] });

    const liveAsksTest = await stack.call('GET', `/api/v1/api-keys/${test.id}`, { auth: live.key });
    expect(refusal(liveAsksTest, '/api/v1/', 404).message).toBe(
      `No such api_key: '${test.id}'; a similar object exists in test mode, but a live mode key was used to make this request.`,
    );
    const testAsksLive = await stack.call('GET', `/api/v1/api-keys/${live.id}`, { auth: test.key });
    expect(refusal(testAsksLive, '/api/v1/', 404).message).toContain(
      'exists in live mode, but a test mode key',
    );

    const stranger = await createKey(stack, owner, { type: 'test', permissions: ['admin.*'] });
    const foreign = await stack.call('GET', `/api/v1/api-keys/${stranger.id}`, { auth: live.key });
    expect(refusal(foreign, '/api/v1/', 404).message).not.toMatch(HINT);
  });

  it('an enterprise webhook of the other mode is a 404 naming that mode; another enterprise’s is a plain 404', async () => {
    const ent = `ent_${randomBase62(24)}`;
    const boss = await stack.token({ ent, role: 'owner' });
    const created = await stack.call('POST', '/api/enterprise/webhooks', {
      auth: boss,
      headers: { 'hallmark-mode': 'test' },
      body: { url: 'https://93.184.216.34/hooks/hallmark', events: ['bulk.job.completed'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.webhook.id as string;
    const path = `/api/enterprise/webhooks/${id}`;

    const asLive = await stack.call('GET', path, { auth: boss });
    expect(refusal(asLive, '/api/', 404).message).toContain('exists in test mode, but a live mode key');
    const deleteAsLive = await stack.call('DELETE', path, { auth: boss });
    expect(refusal(deleteAsLive, '/api/', 404).message).toContain('exists in test mode');

    const other = await stack.token({ ent: `ent_${randomBase62(24)}`, role: 'owner' });
    for (const mode of ['live', 'test']) {
      const res = await stack.call('GET', path, { auth: other, headers: { 'hallmark-mode': mode } });
      expect(refusal(res, '/api/', 404).message).not.toMatch(HINT);
    }
    const stillThere = await stack.call('GET', path, { auth: boss, headers: { 'hallmark-mode': 'test' } });
    expect(stillThere.status).toBe(200);
  });
});
