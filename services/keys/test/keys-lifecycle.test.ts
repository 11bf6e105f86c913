// A key's life against real PostgreSQL: create, verify, update, rotate, expire, revoke,
// with the event and audit entry of each change, and no secret at rest.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashSecret } from '../src/domain/secret.js';
import {
  CALL,
  createRequest,
  newEnterprise,
  openHarness,
  outboxTypes,
  refusal,
  signIn,
  type Harness,
  type Session,
} from './harness.js';

let h: Harness;
let alice: Session;
beforeAll(async () => {
  h = await openHarness('keys_life');
  alice = await signIn(h, { ent: newEnterprise(), sub: 'alice' });
});
afterAll(() => h.close());

const verify = (secret: string) => h.rpc.verifyKey({ secret_hash: hashSecret(secret), ip_address: '' }, CALL);
const create = (over: Parameters<typeof createRequest>[1] = {}) =>
  h.rpc.createKey(createRequest(alice.principal, over), CALL);

describe('create and verify', () => {
  it('create returns the secret once; list and get never carry it', async () => {
    const res = await create({
      name: 'orders',
      permissions: ['transactions.read', 'transactions.create'],
      allowed_ips: ['10.0.0.0/8'],
    });
    expect(res.secret).toMatch(/^pk_live_[0-9A-Za-z]{38}$/);
    expect(res.key).toMatchObject({
      name: 'orders',
      type: 'production',
      status: 'active',
      livemode: true,
      rate_limit: 1000,
      requests_per_hour: 50_000,
      burst_limit: 100,
      key_prefix: res.secret.slice(0, 12),
      allowed_ips: ['10.0.0.0/8'],
      created_by: alice.userId,
      access_level: 'owner',
      last_used_at: '',
      expires_at: '',
    });
    const listed = await h.rpc.listKeys({ principal: alice.principal }, CALL);
    const got = await h.rpc.getKey({ principal: alice.principal, key_id: res.key!.id }, CALL);
    expect(listed.keys.map((k) => k.id)).toContain(res.key!.id);
    const body = res.secret.slice('pk_live_'.length);
    expect(JSON.stringify(listed)).not.toContain(body);
    expect(JSON.stringify(got)).not.toContain(body);
  });

  it('each type gets its prefix, and test keys are not live', async () => {
    const test = await create({ type: 'test' });
    const restricted = await create({
      type: 'restricted',
      rate_limit: 30,
      expires_at: new Date(h.clock.now + 3600_000).toISOString(),
    });
    const enterprise = await create({
      type: 'enterprise',
      permissions: ['bulk:mint'],
      requests_per_hour: 500,
    });
    expect(test.secret).toMatch(/^pk_test_/);
    expect(restricted.secret).toMatch(/^pk_restricted_/);
    expect(enterprise.secret).toMatch(/^pk_live_/);
    expect((await verify(test.secret)).key).toMatchObject({
      type: 'test',
      livemode: false,
      rate_limit_per_minute: 100,
    });
    expect((await verify(restricted.secret)).key).toMatchObject({
      type: 'restricted',
      livemode: true,
      rate_limit_per_minute: 30,
      rate_limit_per_hour: 1500,
      burst_limit: 30,
    });
    expect((await verify(enterprise.secret)).key).toMatchObject({
      type: 'enterprise',
      permissions: ['bulk:mint'],
      rate_limit_per_hour: 500,
      burst_limit: 100,
    });
  });

  it('verification gives the gateway what it authorises with', async () => {
    const res = await create({ permissions: ['reports.*'], allowed_ips: ['2001:db8::/32'] });
    const { key } = await verify(res.secret);
    expect(key).toEqual({
      key_id: res.key!.id,
      enterprise_id: alice.enterpriseId,
      type: 'production',
      livemode: true,
      permissions: ['reports.*'],
      rate_limit_per_minute: 1000,
      rate_limit_per_hour: 50_000,
      burst_limit: 100,
      allowed_ips: ['2001:db8::/32'],
      expires_at: '',
      grace_until: '',
      created_by: alice.userId,
    });
  });

  it('an unknown or malformed hash is an invalid key', async () => {
    expect((await refusal(verify('pk_live_' + 'a'.repeat(38)))).code).toBe('invalid_api_key');
    expect((await refusal(h.rpc.verifyKey({ secret_hash: 'not-a-hash', ip_address: '' }, CALL))).code).toBe(
      'invalid_api_key',
    );
  });

  it('a refused create writes nothing', async () => {
    const before = (await outboxTypes(h.pool)).length;
    const err = await refusal(create({ name: '' }));
    expect([err.code, err.param]).toEqual(['parameter_missing', 'name']);
    expect((await outboxTypes(h.pool)).length).toBe(before);
  });
});

describe('expiry, revocation, rotation', () => {
  it('an expired key answers expired_api_key and lists as expired', async () => {
    const res = await create({ expires_at: new Date(h.clock.now + 60_000).toISOString() });
    await verify(res.secret);
    h.clock.advance(61_000);
    expect((await refusal(verify(res.secret))).code).toBe('expired_api_key');
    expect((await h.rpc.getKey({ principal: alice.principal, key_id: res.key!.id }, CALL)).status).toBe(
      'expired',
    );
  });

  it('a revoked key can never verify again, nor be changed or restored', async () => {
    const res = await create();
    const id = res.key!.id;
    const before = (await outboxTypes(h.pool)).length;
    const revoked = await h.rpc.revokeKey(
      { principal: alice.principal, key_id: id, ip_address: '198.51.100.4' },
      CALL,
    );
    expect(revoked.status).toBe('revoked');
    expect(revoked.revoked_at).not.toBe('');
    expect((await refusal(verify(res.secret))).code).toBe('invalid_api_key');
    // Idempotent: a second revoke answers the same key and records nothing new.
    expect(
      (await h.rpc.revokeKey({ principal: alice.principal, key_id: id, ip_address: '' }, CALL)).revoked_at,
    ).toBe(revoked.revoked_at);
    expect((await outboxTypes(h.pool)).slice(before)).toEqual(['key.revoked']);
    const attempts = [
      () =>
        h.rpc.updateKey(
          {
            principal: alice.principal,
            key_id: id,
            name: 'back',
            permissions: [],
            set_permissions: false,
            allowed_ips: [],
            set_allowed_ips: false,
            ip_address: '',
          },
          CALL,
        ),
      () => h.rpc.rotateKey({ principal: alice.principal, key_id: id, ip_address: '' }, CALL),
      () =>
        h.rpc.shareKey(
          {
            principal: alice.principal,
            key_id: id,
            user_ids: [alice.userId],
            permissions: ['read'],
            ip_address: '',
          },
          CALL,
        ),
    ];
    for (const attempt of attempts) expect((await refusal(attempt())).code).toBe('resource_deleted');
    h.clock.advance(365 * 86_400_000);
    expect((await refusal(verify(res.secret))).code).toBe('invalid_api_key');
    expect((await h.rpc.getKey({ principal: alice.principal, key_id: id }, CALL)).status).toBe('revoked');
  });

  it('rotation: old secret works during grace and stops after', async () => {
    const res = await create();
    const rotated = await h.rpc.rotateKey(
      { principal: alice.principal, key_id: res.key!.id, grace_period_seconds: 3600, ip_address: '' },
      CALL,
    );
    expect(rotated.secret).not.toBe(res.secret);
    expect(rotated.key!.key_prefix).toBe(rotated.secret.slice(0, 12));
    expect(Date.parse(rotated.grace_until)).toBe(h.clock.now + 3600_000);
    const old = await verify(res.secret);
    expect(old.key).toMatchObject({ key_id: res.key!.id, grace_until: rotated.grace_until });
    expect((await verify(rotated.secret)).key!.grace_until).toBe('');
    h.clock.advance(3600_000);
    expect((await refusal(verify(res.secret))).code).toBe('invalid_api_key');
    expect((await verify(rotated.secret)).key!.key_id).toBe(res.key!.id);
  });

  it('rotation defaults to a 24 h grace; grace 0 ends every older secret at once', async () => {
    const res = await create();
    const first = await h.rpc.rotateKey(
      { principal: alice.principal, key_id: res.key!.id, ip_address: '' },
      CALL,
    );
    expect(Date.parse(first.grace_until)).toBe(h.clock.now + 86_400_000);
    const second = await h.rpc.rotateKey(
      { principal: alice.principal, key_id: res.key!.id, grace_period_seconds: 0, ip_address: '' },
      CALL,
    );
    for (const s of [res.secret, first.secret])
      expect((await refusal(verify(s))).code).toBe('invalid_api_key');
    await verify(second.secret);
    const err = await refusal(
      h.rpc.rotateKey(
        { principal: alice.principal, key_id: res.key!.id, grace_period_seconds: 8 * 86_400, ip_address: '' },
        CALL,
      ),
    );
    expect(err.param).toBe('gracePeriodSeconds');
  });
});

describe('update', () => {
  it('changes name, permissions, rate limit and IPs, and records key.updated; a no-op records nothing', async () => {
    const res = await create();
    const id = res.key!.id;
    const before = (await outboxTypes(h.pool)).length;
    const updated = await h.rpc.updateKey(
      {
        principal: alice.principal,
        key_id: id,
        name: 'renamed',
        permissions: ['billing.*', 'users.read'],
        set_permissions: true,
        rate_limit: 50,
        allowed_ips: ['192.0.2.1'],
        set_allowed_ips: true,
        ip_address: '192.0.2.1',
      },
      CALL,
    );
    expect(updated).toMatchObject({
      name: 'renamed',
      permissions: ['billing.*', 'users.read'],
      rate_limit: 50,
      requests_per_hour: 2500,
      burst_limit: 50,
      allowed_ips: ['192.0.2.1'],
    });
    expect((await verify(res.secret)).key).toMatchObject({
      permissions: ['billing.*', 'users.read'],
      rate_limit_per_minute: 50,
      allowed_ips: ['192.0.2.1'],
    });
    await h.rpc.updateKey(
      {
        principal: alice.principal,
        key_id: id,
        name: 'renamed',
        permissions: [],
        set_permissions: false,
        allowed_ips: [],
        set_allowed_ips: false,
        ip_address: '',
      },
      CALL,
    );
    expect((await outboxTypes(h.pool)).slice(before)).toEqual(['key.updated']);
    const err = await refusal(
      h.rpc.updateKey(
        {
          principal: alice.principal,
          key_id: id,
          permissions: ['bulk:mint'],
          set_permissions: true,
          allowed_ips: [],
          set_allowed_ips: false,
          ip_address: '',
        },
        CALL,
      ),
    );
    expect([err.code, err.param]).toEqual(['parameter_invalid', 'permissions']);
  });
});

describe('events and secrets at rest', () => {
  it('every change records its event, with the enterprise and mode, in order', async () => {
    const before = (await outboxTypes(h.pool)).length;
    const res = await create({ type: 'test' });
    const id = res.key!.id;
    const p = { principal: alice.principal, key_id: id, ip_address: '' };
    await h.rpc.updateKey(
      { ...p, name: 'n2', permissions: [], set_permissions: false, allowed_ips: [], set_allowed_ips: false },
      CALL,
    );
    await h.rpc.rotateKey(p, CALL);
    await h.rpc.shareKey({ ...p, user_ids: [alice.userId], permissions: ['read'] }, CALL);
    await h.rpc.revokeKey(p, CALL);
    expect((await outboxTypes(h.pool)).slice(before)).toEqual([
      'key.created',
      'key.updated',
      'key.rotated',
      'key.shared',
      'key.revoked',
    ]);
    const { rows } = await h.pool.query(
      "SELECT payload FROM outbox WHERE payload->'data'->>'id' = $1 ORDER BY seq",
      [id],
    );
    for (const r of rows)
      expect(r.payload).toMatchObject({ source: 'keys', enterprise_id: alice.enterpriseId, livemode: false });
  });

  it('no secret is stored in the keys database', async () => {
    const secrets = [(await create()).secret, (await create({ type: 'test' })).secret];
    const rotated = await h.rpc.rotateKey(
      { principal: alice.principal, key_id: (await create()).key!.id, ip_address: '' },
      CALL,
    );
    secrets.push(rotated.secret);
    const { rows: tables } = await h.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'api_key_secrets', 'audit_logs', 'outbox']),
    );
    for (const secret of secrets) {
      // The body after the 4 display characters is what no table may hold, in any column.
      const hidden = secret.slice(secret.lastIndexOf('_') + 5);
      for (const { table_name } of tables) {
        const { rows } = await h.pool.query(
          `SELECT count(*)::int AS n FROM "${table_name}" t WHERE t::text LIKE $1`,
          [`%${hidden}%`],
        );
        expect({ table_name, n: rows[0].n }).toEqual({ table_name, n: 0 });
      }
    }
  });
});
