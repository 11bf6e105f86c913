// The API key endpoints of the spec (Endpoints › API keys) through the real gateway:
// each endpoint's guarantee, its validation, tenancy (another enterprise, test mode) and
// the credential channels.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId, parseApiKey } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { startTestStack, type TestStack } from '../src/index.js';
import {
  callWithKey,
  createEnterpriseKey,
  createKey,
  errorOf,
  secondsFromNow,
  sleep,
  timeUntil,
  type IssuedKey,
} from '../src/keys.js';

let stack: TestStack;
/** Owner session of the enterprise most tests use. */
let owner: string;
let ent: string;

beforeAll(async () => {
  stack = await startTestStack();
  ent = newId('enterprise');
  owner = await stack.token({ ent, sub: 'owner-1', role: 'owner' });
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

const KEY_SHAPE = /^(pk_live_|pk_test_|pk_restricted_)[0-9A-Za-z]{38}$/;

function expectError(
  res: Awaited<ReturnType<TestStack['call']>>,
  path: string,
  status: number,
  code: string,
  param?: string,
) {
  const e = errorOf(res, path);
  expect({ status: res.status, code: e.code, ...(param ? { param: e.param } : {}) }).toEqual({
    status,
    code,
    ...(param ? { param } : {}),
  });
  expect(e.styleProblems).toEqual([]);
  return e;
}

describe('POST /api/v1/api-keys', () => {
  it.each([
    ['production', 'pk_live_', true, 1000],
    ['test', 'pk_test_', false, 100],
  ] as const)(
    'creates a %s key: 201 with the full secret (%s…) shown this once',
    async (type, prefix, live, rate) => {
      const res = await stack.call('POST', '/api/v1/api-keys', {
        auth: owner,
        body: { name: `a ${type} key`, type, permissions: ['transactions.read', 'users.*'] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^apikey_/),
        name: `a ${type} key`,
        type,
        permissions: ['transactions.read', 'users.*'],
        rateLimit: rate,
        expiresAt: null,
        status: 'active',
        livemode: live,
        lastUsedAt: null,
      });
      expect(Date.parse(res.body.createdAt)).not.toBeNaN();
      expect(res.body.key).toMatch(KEY_SHAPE);
      expect(res.body.key.startsWith(prefix)).toBe(true);
      expect(parseApiKey(res.body.key)).not.toBeNull(); // its checksum holds
      expect(res.body.key.startsWith(res.body.keyPrefix)).toBe(true);
      expect(res.body.keyPrefix.length).toBeLessThan(prefix.length + 8);
    },
  );

  it('creates a restricted key (pk_restricted_) with its custom rate limit and expiry', async () => {
    const expiresAt = secondsFromNow(3600);
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: owner,
      body: { name: 'r', type: 'restricted', permissions: ['reports.read'], rateLimit: 30, expiresAt },
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^pk_restricted_/);
    expect(res.body).toMatchObject({ type: 'restricted', rateLimit: 30, permissions: ['reports.read'] });
    expect(Date.parse(res.body.expiresAt)).toBe(Date.parse(expiresAt));
  });

  it('never shows the secret again: not in the list, not in get', async () => {
    const k = await createKey(stack, owner, { name: 'shown once' });
    const list = await stack.call('GET', '/api/v1/api-keys', { auth: owner });
    const get = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(list.status).toBe(200);
    expect(get.status).toBe(200);
    expect(list.text).not.toContain(k.key);
    expect(get.text).not.toContain(k.key);
    expect(get.body.key).toBeUndefined();
    for (const item of list.body.apiKeys) expect(item.key).toBeUndefined();
  });

  const base = { name: 'v', type: 'production', permissions: ['admin.*'] };
  it.each([
    [
      'restricted without rateLimit',
      { ...base, type: 'restricted', expiresAt: secondsFromNow(3600) },
      'parameter_missing',
      'rateLimit',
    ],
    [
      'an unknown permission',
      { ...base, permissions: ['transactions.explode'] },
      'parameter_invalid',
      'permissions',
    ],
    ['an unversioned scope', { ...base, permissions: ['bulk:mint'] }, 'parameter_invalid', 'permissions'],
    ['no permissions', { ...base, permissions: [] }, 'parameter_missing', 'permissions'],
    ['permissions absent', { name: 'v', type: 'production' }, 'parameter_missing', 'permissions'],
    ['name absent', { type: 'production', permissions: ['admin.*'] }, 'parameter_missing', 'name'],
    ['a blank name', { ...base, name: '   ' }, 'parameter_invalid', 'name'],
    ['an unknown type', { ...base, type: 'enterprise' }, 'parameter_invalid', 'type'],
    ['expiresAt in the past', { ...base, expiresAt: secondsFromNow(-60) }, 'parameter_invalid', 'expiresAt'],
    ['expiresAt not ISO 8601', { ...base, expiresAt: 'tomorrow' }, 'parameter_invalid', 'expiresAt'],
    ['rateLimit 0', { ...base, rateLimit: 0 }, 'parameter_invalid', 'rateLimit'],
    ['a non-integer rateLimit', { ...base, rateLimit: 'fast' }, 'parameter_invalid', 'rateLimit'],
    [
      'an allowedIps entry that is no address',
      { ...base, allowedIps: ['999.1.1.1'] },
      'parameter_invalid',
      'allowedIps',
    ],
    ['an unknown field', { ...base, colour: 'red' }, 'parameter_unknown', 'colour'],
  ])('refuses %s with 400 naming the parameter', async (_label, body, code, param) => {
    const res = await stack.call('POST', '/api/v1/api-keys', { auth: owner, body });
    const e = expectError(res, '/api/v1/api-keys', 400, code, param);
    expect(e.type).toBe('invalid_request_error');
    expect(e.message).toEqual(expect.any(String));
  });
});

describe('GET /api/v1/api-keys and GET /api/v1/api-keys/{key_id}', () => {
  it('lists the enterprise keys as {apiKeys} with status and lastUsedAt', async () => {
    const session = await stack.token();
    const a = await createKey(stack, session, { name: 'first' });
    const b = await createKey(stack, session, { name: 'second', type: 'test' });
    const res = await stack.call('GET', '/api/v1/api-keys', { auth: session });
    expect(res.status).toBe(200);
    expect(res.body.apiKeys.map((k: IssuedKey) => k.id).sort()).toEqual([a.id, b.id].sort());
    for (const k of res.body.apiKeys) {
      expect(k).toMatchObject({ status: 'active', lastUsedAt: null });
      expect(k).toHaveProperty('name');
      expect(k).toHaveProperty('type');
      expect(k).toHaveProperty('permissions');
      expect(k).toHaveProperty('createdAt');
    }
  });

  it('gets one key by id with its details', async () => {
    const k = await createKey(stack, owner, { name: 'detail', allowedIps: ['127.0.0.1', '10.0.0.0/8'] });
    const res = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(res.status).toBe(200);
    const { key: _secret, ...rest } = k;
    expect(res.body).toMatchObject({ ...rest, allowedIps: ['127.0.0.1', '10.0.0.0/8'] });
  });

  it('an unknown key id is 404 resource_not_found', async () => {
    const res = await stack.call('GET', '/api/v1/api-keys/apikey_000000000000000000000000', { auth: owner });
    expectError(res, '/api/v1/api-keys/x', 404, 'resource_not_found');
  });
});

describe('PATCH /api/v1/api-keys/{key_id}', () => {
  it('updates name, permissions, rateLimit and allowedIps', async () => {
    const k = await createKey(stack, owner, { name: 'before', permissions: ['users.read'] });
    const res = await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: owner,
      body: {
        name: 'after',
        permissions: ['users.read', 'reports.export'],
        rateLimit: 500,
        allowedIps: ['192.168.0.0/16'],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: k.id,
      name: 'after',
      permissions: expect.arrayContaining(['users.read', 'reports.export']),
      rateLimit: 500,
      allowedIps: ['192.168.0.0/16'],
      status: 'active',
    });
    expect(res.body.key).toBeUndefined();
    const get = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(get.body).toMatchObject({ name: 'after', rateLimit: 500 });
  });

  it.each([
    ['an empty body', {}, 'parameter_invalid', undefined],
    ['an unknown permission', { permissions: ['nope.read'] }, 'parameter_invalid', 'permissions'],
    ['a rateLimit below 1', { rateLimit: -5 }, 'parameter_invalid', 'rateLimit'],
    ['an invalid allowedIps entry', { allowedIps: ['not-an-ip'] }, 'parameter_invalid', 'allowedIps'],
    ['the type (not updatable)', { type: 'test' }, 'parameter_unknown', 'type'],
  ])('refuses %s with 400', async (_label, body, code, param) => {
    const k = await createKey(stack, owner);
    const res = await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, { auth: owner, body });
    expectError(res, '/api/v1/api-keys/x', 400, code, param);
  });

  it('new permissions and allowedIps bind the key at once (cached verification dropped)', async () => {
    const k = await createKey(stack, owner);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);
    await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: owner,
      body: { permissions: ['billing.read'] },
    });
    const ms = await timeUntil(
      async () => (await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status === 403,
      { timeoutMs: 3000 },
    );
    expect(ms).toBeLessThan(1000);
    const refused = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key);
    expect(errorOf(refused, '/api/v1/').fields.required_permission).toBe('admin.*');

    await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: owner,
      body: { permissions: ['admin.*'], allowedIps: ['10.9.9.9'] },
    });
    await timeUntil(
      async () => {
        const r = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key);
        return r.status === 403 && errorOf(r, '/api/v1/').fields.required_permission !== 'admin.*';
      },
      { timeoutMs: 1000 },
    );
  });
});

describe('DELETE /api/v1/api-keys/{key_id}', () => {
  it('revokes the key: it stops working, shows as revoked, and cannot be updated, rotated or restored', async () => {
    const k = await createKey(stack, owner);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);
    const del = await stack.call('DELETE', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: k.id, status: 'revoked' });
    expect(Date.parse(del.body.revokedAt)).not.toBeNaN();

    // Gateways drop their cached verification on the key.revoked event: within 1 s.
    const ms = await timeUntil(
      async () => (await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status === 401,
      { timeoutMs: 3000 },
    );
    expect(ms).toBeLessThan(1000);
    const used = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key);
    expectError(used, '/api/v1/', 401, 'invalid_api_key');

    const get = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(get.body.status).toBe('revoked');
    const list = await stack.call('GET', '/api/v1/api-keys', { auth: owner });
    expect(list.body.apiKeys.find((x: IssuedKey) => x.id === k.id).status).toBe('revoked');

    for (const [method, path, body] of [
      ['PATCH', `/api/v1/api-keys/${k.id}`, { name: 'back to life' }],
      ['POST', `/api/v1/api-keys/${k.id}/rotate`, { gracePeriodSeconds: 0 }],
    ] as const) {
      const res = await stack.call(method, path, { auth: owner, body });
      expect(errorOf(res, path).code).toBe('resource_deleted');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const again = await stack.call('DELETE', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(again.body.status).toBe('revoked');
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(401);
  });
});

describe('POST /api/v1/api-keys/{key_id}/rotate', () => {
  it('issues a new secret; the old one works through the grace period and stops after it', async () => {
    const k = await createKey(stack, owner);
    const rotatedAt = Date.now();
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/rotate`, {
      auth: owner,
      body: { gracePeriodSeconds: 2 },
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(k.id);
    expect(res.body.key).toMatch(KEY_SHAPE);
    expect(res.body.key).not.toBe(k.key);
    expect(res.body.key.startsWith(res.body.keyPrefix)).toBe(true);
    const validUntil = Date.parse(res.body.previousKeyValidUntil);
    expect(validUntil - rotatedAt).toBeGreaterThan(1500);
    expect(validUntil - rotatedAt).toBeLessThan(3500);

    const fresh = res.body.key as string;
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', fresh)).status).toBe(200);
    await sleep(validUntil - 400 - Date.now());
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200); // still in grace
    await sleep(validUntil + 100 - Date.now());
    expectError(
      await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key),
      '/api/v1/',
      401,
      'invalid_api_key',
    );
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', fresh)).status).toBe(200);
  });

  it('gracePeriodSeconds 0 ends the old secret at once', async () => {
    const k = await createKey(stack, owner);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/rotate`, {
      auth: owner,
      body: { gracePeriodSeconds: 0 },
    });
    expect(res.status).toBe(200);
    const ms = await timeUntil(
      async () => (await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status === 401,
      { timeoutMs: 3000 },
    );
    expect(ms).toBeLessThan(1000);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', res.body.key)).status).toBe(200);
  });

  it.each([[-1], [604801], ['soon']])('refuses gracePeriodSeconds %p with 400', async (value) => {
    const k = await createKey(stack, owner);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/rotate`, {
      auth: owner,
      body: { gracePeriodSeconds: value },
    });
    expectError(res, '/api/v1/', 400, 'parameter_invalid', 'gracePeriodSeconds');
  });
});

describe('GET /api/v1/api-keys/{key_id}/usage', () => {
  it('counts every request made with the key: totals, successes, failures, per endpoint (shipped in batches)', async () => {
    const k = await createKey(stack, owner, { name: 'usage' });
    for (let i = 0; i < 3; i++)
      expect((await callWithKey(stack, 'GET', `/api/v1/api-keys/${k.id}`, k.key, 'header')).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(
        (await callWithKey(stack, 'GET', '/api/v1/api-keys/apikey_000000000000000000000000', k.key)).status,
      ).toBe(404);
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);

    const usage = await eventually(
      async () => {
        const res = await stack.call('GET', `/api/v1/api-keys/${k.id}/usage?period=24h`, { auth: owner });
        expect(res.status).toBe(200);
        expect(res.body.totalRequests).toBe(6);
        return res.body;
      },
      { timeoutMs: 6000, intervalMs: 250 },
    );
    expect(usage).toMatchObject({
      keyId: k.id,
      period: '24h',
      totalRequests: 6,
      successfulRequests: 4,
      failedRequests: 2,
    });
    expect(usage.averageLatency).toBeGreaterThanOrEqual(0);
    const byEndpoint = Object.fromEntries(
      usage.endpoints.map((e: { method: string; path: string; requests: number; avgLatency: number }) => [
        `${e.method} ${e.path}`,
        e.requests,
      ]),
    );
    expect(byEndpoint).toEqual({ 'GET /api/v1/api-keys/:key_id': 5, 'GET /api/v1/api-keys': 1 });
    for (const e of usage.endpoints) expect(e.avgLatency).toBeGreaterThanOrEqual(0);

    for (const period of ['7d', '30d']) {
      const res = await stack.call('GET', `/api/v1/api-keys/${k.id}/usage?period=${period}`, { auth: owner });
      expect(res.body).toMatchObject({ period, totalRequests: 6 });
    }
    const list = await stack.call('GET', '/api/v1/api-keys', { auth: owner });
    const listed = list.body.apiKeys.find((x: IssuedKey) => x.id === k.id);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(k.createdAt));
  });

  it('a fresh key has zero usage; period defaults to 7d', async () => {
    const k = await createKey(stack, owner);
    const res = await stack.call('GET', `/api/v1/api-keys/${k.id}/usage`, { auth: owner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      keyId: k.id,
      period: '7d',
      totalRequests: 0,
      successfulRequests: 0,
      failedRequests: 0,
      averageLatency: 0,
      endpoints: [],
    });
  });

  it('refuses a period other than 24h, 7d, 30d with 400 param period', async () => {
    const k = await createKey(stack, owner);
    const res = await stack.call('GET', `/api/v1/api-keys/${k.id}/usage?period=1y`, { auth: owner });
    expectError(res, '/api/v1/', 400, 'parameter_invalid', 'period');
  });
});

describe('POST /api/v1/api-keys/{key_id}/share', () => {
  let shareEnt: string;
  let shareOwner: string;
  let member: string;

  beforeAll(async () => {
    shareEnt = newId('enterprise');
    shareOwner = await stack.token({ ent: shareEnt, sub: 'share-owner', role: 'owner' });
    member = await stack.token({ ent: shareEnt, sub: 'share-member', role: 'member' });
    // Users exist once they have made a request with their session.
    expect((await stack.call('GET', '/api/v1/api-keys', { auth: member })).status).toBe(200);
  });

  it('read → viewer: the member sees the key (never its secret) but cannot change it', async () => {
    const k = await createKey(stack, shareOwner);
    expect((await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: member })).status).toBe(404);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/share`, {
      auth: shareOwner,
      body: { userIds: ['share-member'], permissions: ['read'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.keyId).toBe(k.id);
    expect(res.body.shares).toEqual([
      expect.objectContaining({ level: 'viewer', permissions: ['read'], userId: expect.any(String) }),
    ]);

    const get = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: member });
    expect(get.status).toBe(200);
    expect(get.body.accessLevel).toBe('viewer');
    expect(get.text).not.toContain(k.key);
    const patch = await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: member,
      body: { name: 'x' },
    });
    expectError(patch, '/api/v1/', 403, 'insufficient_permissions');
    const rotate = await stack.call('POST', `/api/v1/api-keys/${k.id}/rotate`, { auth: member, body: {} });
    expectError(rotate, '/api/v1/', 403, 'insufficient_permissions');
  });

  it('rotate → admin: the member may rotate and update, but not revoke or re-share', async () => {
    const k = await createKey(stack, shareOwner);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/share`, {
      auth: shareOwner,
      body: { userIds: ['share-member'], permissions: ['read', 'rotate'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.shares[0].level).toBe('admin');
    const rotate = await stack.call('POST', `/api/v1/api-keys/${k.id}/rotate`, {
      auth: member,
      body: { gracePeriodSeconds: 0 },
    });
    expect(rotate.status).toBe(200);
    expect(rotate.body.key).toMatch(KEY_SHAPE);
    const patch = await stack.call('PATCH', `/api/v1/api-keys/${k.id}`, {
      auth: member,
      body: { name: 'y' },
    });
    expect(patch.status).toBe(200);
    const del = await stack.call('DELETE', `/api/v1/api-keys/${k.id}`, { auth: member });
    expectError(del, '/api/v1/', 403, 'insufficient_permissions');
  });

  it('answers 404 naming userIds for a row id that is no user of the enterprise', async () => {
    const k = await createKey(stack, shareOwner);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/share`, {
      auth: shareOwner,
      body: { userIds: ['user_000000000000000000000000'], permissions: ['read'] },
    });
    expectError(res, '/api/v1/', 404, 'resource_not_found', 'userIds');
  });

  it.each([
    [
      'a permission other than read/rotate',
      { userIds: ['share-member'], permissions: ['delete'] },
      'permissions.0',
    ],
    ['no userIds', { userIds: [], permissions: ['read'] }, 'userIds'],
  ])('refuses %s with 400 naming the parameter', async (_label, body, param) => {
    const k = await createKey(stack, shareOwner);
    const res = await stack.call('POST', `/api/v1/api-keys/${k.id}/share`, { auth: shareOwner, body });
    const e = errorOf(res, '/api/v1/');
    expect(res.status).toBe(400);
    expect(e.param).toBe(param);
  });
});

describe('GET /api/v1/api-keys/{key_id}/audit-logs', () => {
  type Log = {
    timestamp: string;
    action: string;
    userId?: string;
    ipAddress?: string;
    endpoint?: string;
    statusCode?: number;
  };
  const logsOf = async (id: string): Promise<Log[]> => {
    const res = await stack.call('GET', `/api/v1/api-keys/${id}/audit-logs`, { auth: owner });
    expect(res.status).toBe(200);
    return res.body.logs;
  };

  it('records key.created, key.updated, key.shared, key.rotated and key.revoked with the acting user and IP, newest first', async () => {
    const colleague = await stack.token({ ent, sub: 'colleague', role: 'member' });
    await stack.call('GET', '/api/v1/api-keys', { auth: colleague });
    const k = await createKey(stack, owner);
    const steps: [string, string, unknown][] = [
      ['PATCH', `/api/v1/api-keys/${k.id}`, { name: 'renamed' }],
      ['POST', `/api/v1/api-keys/${k.id}/share`, { userIds: ['colleague'], permissions: ['read'] }],
      ['POST', `/api/v1/api-keys/${k.id}/rotate`, { gracePeriodSeconds: 0 }],
      ['DELETE', `/api/v1/api-keys/${k.id}`, undefined],
    ];
    for (const [method, path, body] of steps) {
      const res = await stack.call(method, path, { auth: owner, body });
      expect(res.status).toBe(200);
    }
    const logs = await logsOf(k.id);
    expect(logs.map((l) => l.action)).toEqual([
      'key.revoked',
      'key.rotated',
      'key.shared',
      'key.updated',
      'key.created',
    ]);
    const userIds = new Set(logs.map((l) => l.userId));
    expect(userIds.size).toBe(1);
    expect([...userIds][0]).toBe('owner-1'); // the session's sub, not a row id
    for (const l of logs) {
      expect(l.ipAddress).toBe('127.0.0.1');
      expect(Date.parse(l.timestamp)).not.toBeNaN();
    }
    const times = logs.map((l) => Date.parse(l.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('records each use of the key as key.used with ipAddress, endpoint and statusCode', async () => {
    const k = await createKey(stack, owner);
    expect((await callWithKey(stack, 'GET', `/api/v1/api-keys/${k.id}`, k.key)).status).toBe(200);
    expect(
      (await callWithKey(stack, 'GET', '/api/v1/api-keys/apikey_000000000000000000000000', k.key)).status,
    ).toBe(404);
    const used = await eventually(
      async () => {
        const u = (await logsOf(k.id)).filter((l) => l.action === 'key.used');
        expect(u).toHaveLength(2);
        return u;
      },
      { timeoutMs: 6000, intervalMs: 250 },
    );
    expect(used).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ipAddress: '127.0.0.1',
          endpoint: 'GET /api/v1/api-keys/:key_id',
          statusCode: 200,
        }),
        expect.objectContaining({
          ipAddress: '127.0.0.1',
          endpoint: 'GET /api/v1/api-keys/:key_id',
          statusCode: 404,
        }),
      ]),
    );
  });
});

describe('POST /api/enterprise/api-keys (session token)', () => {
  it('issues a key with unversioned scopes: 201 {success, apiKey:{key, keyPrefix, scopes, id, createdAt}}', async () => {
    const res = await stack.call('POST', '/api/enterprise/api-keys', {
      auth: owner,
      body: {
        name: 'bulk importer',
        scopes: ['bulk:mint', 'bulk:retry', 'voucher:create', 'pos:voucher'],
        rateLimit: { requestsPerHour: 5000, burstLimit: 50 },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const k = res.body.apiKey;
    expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'key', 'keyPrefix', 'scopes']);
    expect(k.key).toMatch(/^pk_live_/);
    expect(parseApiKey(k.key)).not.toBeNull();
    expect(k.key.startsWith(k.keyPrefix)).toBe(true);
    expect(k.id).toMatch(/^apikey_/);
    expect([...k.scopes].sort()).toEqual(['bulk:mint', 'bulk:retry', 'pos:voucher', 'voucher:create']);
    expect(Date.parse(k.createdAt)).not.toBeNaN();
    // It authenticates, and its unversioned scopes grant nothing on admin routes.
    const used = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key, 'header');
    const e = expectError(used, '/api/v1/', 403, 'insufficient_permissions');
    expect(e.fields.required_permission).toBe('admin.*');
    // Listed with the enterprise's keys, without its secret.
    const list = await stack.call('GET', '/api/v1/api-keys', { auth: owner });
    expect(list.body.apiKeys.map((x: IssuedKey) => x.id)).toContain(k.id);
    expect(list.text).not.toContain(k.key);
  });

  it('refuses an API key as the credential with 401 (session only), in the unversioned style', async () => {
    const admin = await createKey(stack, owner);
    for (const via of ['bearer', 'header'] as const) {
      const res = await callWithKey(stack, 'POST', '/api/enterprise/api-keys', admin.key, via, {
        body: { name: 'x', scopes: ['bulk:mint'] },
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false });
      expect(errorOf(res, '/api/enterprise/api-keys').styleProblems).toEqual([]);
    }
  });

  it.each([
    ['an unknown scope', { name: 'x', scopes: ['bulk:nuke'] }, /^scopes/],
    ['a versioned scope', { name: 'x', scopes: ['admin.*'] }, /^scopes/],
    ['no scopes', { name: 'x', scopes: [] }, /^scopes/],
    ['scopes absent', { name: 'x' }, /^scopes$/],
    [
      'burstLimit above requestsPerHour',
      { name: 'x', scopes: ['bulk:mint'], rateLimit: { requestsPerHour: 10, burstLimit: 20 } },
      /^rateLimit\.burstLimit$/,
    ],
    ['a rateLimit given as a number', { name: 'x', scopes: ['bulk:mint'], rateLimit: 100 }, /^rateLimit/],
  ])('refuses %s with 400 {success:false} naming the parameter', async (_label, body, param) => {
    const res = await stack.call('POST', '/api/enterprise/api-keys', { auth: owner, body });
    expect(res.status).toBe(400);
    const e = errorOf(res, '/api/enterprise/api-keys');
    expect(e.styleProblems).toEqual([]);
    expect(e.param).toMatch(param);
  });

  it('the issued key is never shown again and works with x-api-key', async () => {
    const k = await createEnterpriseKey(stack, owner);
    const get = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(get.status).toBe(200);
    expect(get.text).not.toContain(k.key);
    expect(get.body).toMatchObject({ id: k.id, permissions: ['bulk:mint'], livemode: true });
  });
});

describe('tenancy and credential channels', () => {
  it("another enterprise's key is 404 (not 403) for get, update, revoke, rotate, usage, share and audit logs", async () => {
    const k = await createKey(stack, owner);
    const stranger = await stack.token({ role: 'owner' });
    const strangerKey = await createKey(stack, stranger);
    for (const auth of [stranger, strangerKey.key]) {
      for (const [method, path, body] of [
        ['GET', `/api/v1/api-keys/${k.id}`, undefined],
        ['PATCH', `/api/v1/api-keys/${k.id}`, { name: 'mine now' }],
        ['DELETE', `/api/v1/api-keys/${k.id}`, undefined],
        ['POST', `/api/v1/api-keys/${k.id}/rotate`, { gracePeriodSeconds: 0 }],
        ['GET', `/api/v1/api-keys/${k.id}/usage`, undefined],
        ['POST', `/api/v1/api-keys/${k.id}/share`, { userIds: ['owner-1'], permissions: ['read'] }],
        ['GET', `/api/v1/api-keys/${k.id}/audit-logs`, undefined],
      ] as const) {
        const res = await stack.call(method, path, { auth, body });
        expect({ call: `${method} ${path}`, status: res.status, code: errorOf(res, path).code }).toEqual({
          call: `${method} ${path}`,
          status: 404,
          code: 'resource_not_found',
        });
      }
      const list = await stack.call('GET', '/api/v1/api-keys', { auth });
      expect(list.body.apiKeys.map((x: IssuedKey) => x.id)).not.toContain(k.id);
    }
    // Nothing the stranger did touched the key.
    const mine = await stack.call('GET', `/api/v1/api-keys/${k.id}`, { auth: owner });
    expect(mine.body).toMatchObject({ status: 'active', name: k.name });
    expect((await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key)).status).toBe(200);
  });

  it('a test key (pk_test_) sees and touches only test-mode keys, and can create only test keys', async () => {
    const session = await stack.token();
    const live = await createKey(stack, session, { name: 'live' });
    const testAdmin = await createKey(stack, session, { name: 'test admin', type: 'test' });
    const testOther = await createKey(stack, session, {
      name: 'test other',
      type: 'test',
      permissions: ['users.read'],
    });

    const list = await callWithKey(stack, 'GET', '/api/v1/api-keys', testAdmin.key);
    expect(list.status).toBe(200);
    expect(list.body.apiKeys.map((x: IssuedKey) => x.id).sort()).toEqual([testAdmin.id, testOther.id].sort());
    for (const x of list.body.apiKeys) expect(x.livemode).toBe(false);

    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'hijack' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await callWithKey(stack, method, `/api/v1/api-keys/${live.id}`, testAdmin.key, 'bearer', {
        body,
      });
      expect({ method, status: res.status }).toEqual({ method, status: 404 });
    }
    expect((await callWithKey(stack, 'GET', `/api/v1/api-keys/${testOther.id}`, testAdmin.key)).status).toBe(
      200,
    );

    const prod = await callWithKey(stack, 'POST', '/api/v1/api-keys', testAdmin.key, 'bearer', {
      body: { name: 'escalate', type: 'production', permissions: ['admin.*'] },
    });
    expectError(prod, '/api/v1/', 403, 'insufficient_permissions');
    const test = await callWithKey(stack, 'POST', '/api/v1/api-keys', testAdmin.key, 'bearer', {
      body: { name: 'sibling', type: 'test', permissions: ['users.read'] },
    });
    expect(test.status).toBe(201);
    expect(test.body).toMatchObject({ type: 'test', livemode: false });
    expect(test.body.key).toMatch(/^pk_test_/);
  });

  it('accepts the key as Bearer and as x-api-key without a warning', async () => {
    const k = await createKey(stack, owner);
    for (const via of ['bearer', 'header'] as const) {
      const res = await callWithKey(stack, 'GET', '/api/v1/api-keys', k.key, via);
      expect(res.status).toBe(200);
      expect(res.headers.get('warning')).toBeNull();
    }
  });

  it('accepts the discouraged api_key query parameter and answers with a Warning header', async () => {
    const k = await createKey(stack, owner);
    const res = await callWithKey(stack, 'GET', `/api/v1/api-keys/${k.id}`, k.key, 'query');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(k.id);
    expect(res.headers.get('warning')).toMatch(/^299 .*api_key/);
  });
});
