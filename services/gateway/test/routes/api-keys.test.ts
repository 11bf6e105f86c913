// routes/api-keys/: the versioned keys surface and the enterprise dashboard's key creation.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

/** A whole ApiKey message (nested messages are encoded as given). */
const apiKey = (over: object) => ({
  id: '',
  name: 'POS',
  type: 'enterprise',
  permissions: [],
  rate_limit: 0,
  expires_at: '',
  created_at: '2025-01-01T00:00:00.000Z',
  last_used_at: '',
  status: 'active',
  key_prefix: '',
  allowed_ips: [],
  livemode: true,
  created_by: 'user_1',
  requests_per_hour: 0,
  burst_limit: 0,
  access_level: '',
  revoked_at: '',
  ...over,
});

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
