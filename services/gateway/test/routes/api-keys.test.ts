// routes/api-keys/: the versioned keys surface (admin.*) and the enterprise dashboard's key
// creation (a user session).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { apiKey } from './fixtures.js';
import { expectMapped, expectSessionOnly, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

describe('POST /api/enterprise/api-keys', () => {
  const payload = { name: 'POS', scopes: ['bulk:mint'], rateLimit: { requestsPerHour: 100 } };
  const req = { method: 'POST' as const, url: '/api/enterprise/api-keys', payload };

  it('creates an enterprise key and shows its secret once (201)', async () => {
    h.answer('keys', 'createKey', async () => ({
      secret: 'hm_secret',
      key: apiKey({ id: 'key_1', key_prefix: 'hm_ent_ab', permissions: ['bulk:mint'] }),
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      apiKey: {
        key: 'hm_secret',
        keyPrefix: 'hm_ent_ab',
        scopes: ['bulk:mint'],
        id: 'key_1',
        createdAt: '2025-01-01T00:00:00.000Z',
      },
    });
    expect(h.callsTo('keys', 'createKey')[0]).toMatchObject({
      type: 'enterprise',
      permissions: ['bulk:mint'],
      requests_per_hour: 100,
    });
  });

  it('refuses a scope outside the bulk set with 400 naming scopes, before any call', async () => {
    const res = await h.app.inject({
      ...req,
      payload: { name: 'x', scopes: ['admin.*'] },
      headers: h.session,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false });
    expect(res.json().param).toMatch(/^scopes/);
    expect(h.calls).toEqual([]);
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's errors to the api envelope", async () => {
    await expectMapped(h, ['keys', 'createKey'], new HallmarkError('parameter_invalid', { param: 'name' }), {
      ...req,
      headers: h.session,
    });
  });
});

const ADMIN = { scope: 'admin.*', wrongScope: 'transactions.read' };
const key = () => apiKey({ id: 'key_1', key_prefix: 'hm_live_ab', permissions: ['transactions.read'] });

describe('POST /api/v1/api-keys', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: {
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: { name: 'POS', type: 'production', permissions: ['transactions.read'] },
    },
    call: 'createKey',
    answer: () => ({ key: key(), secret: 'hm_secret', grace_until: '' }),
    status: 201,
    shape: { id: 'key_1', key: 'hm_secret', keyPrefix: 'hm_live_ab', expiresAt: null },
    sent: { name: 'POS', type: 'production', permissions: ['transactions.read'] },
    bad: { payload: { name: 'POS', type: 'root', permissions: [] }, param: 'type' },
    error: new HallmarkError('parameter_invalid', { param: 'permissions' }),
  }));

describe('GET /api/v1/api-keys', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/api-keys' },
    call: 'listKeys',
    answer: () => ({ keys: [key()] }),
    status: 200,
    shape: { apiKeys: [{ id: 'key_1', permissions: ['transactions.read'] }] },
    sent: {},
    error: new HallmarkError('service_unavailable'),
  }));

describe('GET /api/v1/api-keys/:key_id', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/api-keys/key_1' },
    call: 'getKey',
    answer: () => key(),
    status: 200,
    shape: { id: 'key_1', status: 'active' },
    sent: { key_id: 'key_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('PATCH /api/v1/api-keys/:key_id', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'PATCH', url: '/api/v1/api-keys/key_1', payload: { allowedIps: ['10.0.0.0/8'] } },
    call: 'updateKey',
    answer: () => apiKey({ id: 'key_1', allowed_ips: ['10.0.0.0/8'] }),
    status: 200,
    shape: { id: 'key_1', allowedIps: ['10.0.0.0/8'] },
    sent: { key_id: 'key_1', allowed_ips: ['10.0.0.0/8'], set_allowed_ips: true, set_permissions: false },
    bad: { payload: { rateLimit: 0 }, param: 'rateLimit' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('DELETE /api/v1/api-keys/:key_id', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'DELETE', url: '/api/v1/api-keys/key_1' },
    call: 'revokeKey',
    answer: () => apiKey({ id: 'key_1', status: 'revoked', revoked_at: '2025-01-02T00:00:00.000Z' }),
    status: 200,
    shape: { id: 'key_1', status: 'revoked', revokedAt: '2025-01-02T00:00:00.000Z' },
    sent: { key_id: 'key_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/api-keys/:key_id/rotate', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/api-keys/key_1/rotate', payload: { gracePeriodSeconds: 60 } },
    call: 'rotateKey',
    answer: () => ({ key: key(), secret: 'hm_new', grace_until: '2025-01-01T00:01:00.000Z' }),
    status: 200,
    shape: { id: 'key_1', key: 'hm_new', previousKeyValidUntil: '2025-01-01T00:01:00.000Z' },
    sent: { key_id: 'key_1' },
    bad: { payload: { gracePeriodSeconds: 604801 }, param: 'gracePeriodSeconds' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('GET /api/v1/api-keys/:key_id/usage', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/api-keys/key_1/usage?period=24h' },
    call: 'getUsage',
    answer: () => ({
      key_id: 'key_1',
      period: '24h',
      total_requests: 3,
      successful_requests: 2,
      failed_requests: 1,
      average_latency: 12,
      endpoints: [{ path: '/api/v1/vouchers', method: 'GET', requests: 3, avg_latency: 12 }],
    }),
    status: 200,
    shape: { keyId: 'key_1', period: '24h', totalRequests: 3, endpoints: [{ avgLatency: 12 }] },
    sent: { key_id: 'key_1', period: '24h' },
    bad: { url: '/api/v1/api-keys/key_1/usage?period=1y', param: 'period' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/api-keys/:key_id/share', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: {
      method: 'POST',
      url: '/api/v1/api-keys/key_1/share',
      payload: { userIds: ['bob'], permissions: ['read'] },
    },
    call: 'shareKey',
    answer: () => ({
      key_id: 'key_1',
      shares: [
        { user_id: 'bob', level: 'shared', permissions: ['read'], created_at: '2025-01-01T00:00:00.000Z' },
      ],
    }),
    status: 200,
    shape: { keyId: 'key_1', shares: [{ userId: 'bob', permissions: ['read'] }] },
    sent: { user_ids: ['bob'], permissions: ['read'] },
    bad: { payload: { userIds: ['bob'], permissions: ['delete'] }, param: 'permissions.0' },
    error: new HallmarkError('parameter_invalid', { param: 'userIds' }),
  }));

describe('GET /api/v1/api-keys/:key_id/audit-logs', () =>
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/api-keys/key_1/audit-logs?limit=5' },
    call: 'listAuditLogs',
    answer: () => ({
      logs: [
        {
          timestamp: '2025-01-01T00:00:00.000Z',
          action: 'key.rotated',
          user_id: 'alice',
          ip_address: '127.0.0.1',
          endpoint: '/api/v1/api-keys/key_1/rotate',
          status_code: 200,
        },
      ],
    }),
    status: 200,
    shape: { logs: [{ action: 'key.rotated', userId: 'alice', statusCode: 200 }] },
    sent: { key_id: 'key_1', limit: 5 },
    bad: { url: '/api/v1/api-keys/key_1/audit-logs?limit=101', param: 'limit' },
    error: new HallmarkError('resource_not_found'),
  }));
