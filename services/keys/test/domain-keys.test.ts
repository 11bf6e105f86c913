// Pure rules of keys: secret format, scopes, IP lists, limits, create/update validation.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError, parseApiKey, sha256Hex } from '@hallmark/kit';
import { normaliseIpEntry } from '../src/domain/ips.js';
import {
  validateCreate,
  validateUpdate,
  type ApiKeyRecord,
  type CreateKeyInput,
} from '../src/domain/keys.js';
import { limitsForEnterprise, limitsForRate } from '../src/domain/limits.js';
import { graceSeconds } from '../src/domain/rotation.js';
import { hasScope } from '../src/domain/scopes.js';
import { displayPrefix, generateSecret, hashSecret, parseSecret } from '../src/domain/secret.js';
import { parseIsoInstant } from '../src/domain/time.js';

const now = new Date('2030-06-01T12:00:00Z');
const base: CreateKeyInput = {
  name: 'key',
  type: 'production',
  permissions: ['transactions.read'],
  rateLimit: null,
  expiresAt: null,
  allowedIps: [],
  requestsPerHour: null,
  burstLimit: null,
};
const create = (over: Partial<CreateKeyInput>, callerLivemode = true) =>
  validateCreate({ ...base, ...over }, { now, callerLivemode });

function refused(fn: () => unknown): HallmarkError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('secrets', () => {
  it('carry the prefix of their type, and the enterprise form uses pk_live_', () => {
    expect(generateSecret('production', true)).toMatch(/^pk_live_[0-9A-Za-z]{38}$/);
    expect(generateSecret('test', false)).toMatch(/^pk_test_[0-9A-Za-z]{38}$/);
    expect(generateSecret('restricted', true)).toMatch(/^pk_restricted_[0-9A-Za-z]{38}$/);
    expect(generateSecret('enterprise', true)).toMatch(/^pk_live_/);
    expect(generateSecret('enterprise', false)).toMatch(/^pk_test_/);
  });

  it('that the keys service issues are accepted by the gateway check (the kit format)', () => {
    for (let i = 0; i < 200; i++) {
      const s = generateSecret(i % 2 ? 'test' : 'restricted', i % 2 === 0);
      expect(parseApiKey(s)).not.toBeNull();
      expect(parseSecret(s)).toEqual({
        ok: true,
        prefix: s.startsWith('pk_test_') ? 'pk_test_' : 'pk_restricted_',
        livemode: !s.startsWith('pk_test_'),
      });
    }
  });

  it('a mistyped key is refused by its checksum', () => {
    const s = generateSecret('production', true);
    let refusedCount = 0;
    for (let i = 'pk_live_'.length; i < s.length; i++) {
      const c = s[i] === 'a' ? 'b' : 'a';
      if (!parseSecret(s.slice(0, i) + c + s.slice(i + 1)).ok) refusedCount++;
    }
    expect(refusedCount).toBe(s.length - 'pk_live_'.length);
    // Two neighbours swapped.
    const swapped = s.slice(0, 10) + s[11] + s[10] + s.slice(12);
    if (swapped !== s) expect(parseSecret(swapped).ok).toBe(false);
  });

  it('malformed input is refused without any work on it', () => {
    for (const bad of [
      '',
      'pk_live_',
      'sk_live_' + 'a'.repeat(38),
      'pk_live_' + 'a'.repeat(37),
      'pk_live_' + '!'.repeat(38),
      'x'.repeat(10_000),
    ])
      expect(parseSecret(bad).ok).toBe(false);
  });

  it('only the hash and a short display prefix are derived for storage', () => {
    const s = generateSecret('production', true);
    expect(hashSecret(s)).toBe(sha256Hex(s));
    expect(hashSecret(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(s)).toBe(s.slice(0, 12));
    expect(displayPrefix(generateSecret('restricted', true))).toHaveLength('pk_restricted_'.length + 4);
  });
});

describe('scopes', () => {
  it('X.* grants every X. scope, admin.* grants all, nothing else widens', () => {
    expect(hasScope(['transactions.*'], 'transactions.delete')).toBe(true);
    expect(hasScope(['transactions.*'], 'users.read')).toBe(false);
    expect(hasScope(['admin.*'], 'bulk:mint')).toBe(true);
    expect(hasScope(['transactions.read'], 'transactions.create')).toBe(false);
    expect(hasScope([], 'admin.*')).toBe(false);
  });

  it('a repairer key (docs/service-records.md) can be made with service_records.write alone, and that scope grants nothing of the brand’s', () => {
    const spec = create({ type: 'restricted', rateLimit: 100, permissions: ['service_records.write'] });
    expect(spec.permissions).toEqual(['service_records.write']);
    expect(hasScope(['service_records.write'], 'transactions.read')).toBe(false);
    expect(hasScope(['service_records.write'], 'transactions.update')).toBe(false);
    expect(hasScope(['transactions.*'], 'service_records.write')).toBe(false);
    expect(hasScope(['admin.*'], 'service_records.write')).toBe(true);
  });
});

describe('IP allowlist entries', () => {
  it('accepts addresses and CIDRs of both families and refuses anything else', () => {
    expect(normaliseIpEntry(' 203.0.113.7 ')).toBe('203.0.113.7');
    expect(normaliseIpEntry('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(normaliseIpEntry('2001:db8::/32')).toBe('2001:db8::/32');
    for (const bad of [
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0.1/',
      '300.1.1.1',
      '10.0.0.0/8/8',
      'example.com',
      '10.0.0.0/-1',
      '10.0.0.0/ 8',
    ])
      expect(normaliseIpEntry(bad)).toBeNull();
  });
});

describe('limits', () => {
  it('default by type as the spec lists them, and scale with a custom per-minute rate', () => {
    expect(limitsForRate('production', null)).toEqual({ perMinute: 1000, perHour: 50_000, burst: 100 });
    expect(limitsForRate('test', null)).toEqual({ perMinute: 100, perHour: 5000, burst: 20 });
    expect(limitsForRate('restricted', 2000)).toEqual({ perMinute: 2000, perHour: 100_000, burst: 200 });
    expect(limitsForEnterprise(null, null)).toEqual({ perMinute: 1000, perHour: 1000, burst: 100 });
    expect(limitsForEnterprise(500, 10)).toEqual({ perMinute: 500, perHour: 500, burst: 10 });
  });
});

describe('a custom rate', () => {
  it('gets its stated per-minute limit back to back: the burst is never below the rate (up to the type default)', () => {
    expect(limitsForRate('production', 5).burst).toBe(5);
    expect(limitsForRate('test', 5).burst).toBe(5);
    expect(limitsForRate('restricted', 60).burst).toBe(60);
    expect(limitsForRate('restricted', 500).burst).toBe(100);
    expect(limitsForRate('test', 500).burst).toBe(100);
  });
});

describe('create validation', () => {
  it('accepts a valid key of every type', () => {
    expect(create({}).livemode).toBe(true);
    expect(create({ type: 'test' }).livemode).toBe(false);
    const r = create({ type: 'restricted', rateLimit: 10, expiresAt: '2030-07-01T00:00:00Z' });
    expect(r.expiresAt?.toISOString()).toBe('2030-07-01T00:00:00.000Z');
    const e = create({
      type: 'enterprise',
      permissions: ['bulk:mint', 'bulk:mint', 'bulk:retry'],
      requestsPerHour: 200,
    });
    expect(e.permissions).toEqual(['bulk:mint', 'bulk:retry']);
    expect(e.limits.perHour).toBe(200);
  });

  it.each([
    [{ name: '' }, 'parameter_missing', 'name'],
    [{ name: '   ' }, 'parameter_invalid', 'name'],
    [{ name: 'x'.repeat(101) }, 'parameter_invalid', 'name'],
    [{ type: '' }, 'parameter_missing', 'type'],
    [{ type: 'superuser' }, 'parameter_invalid', 'type'],
    [{ permissions: [] }, 'parameter_missing', 'permissions'],
    [{ permissions: ['transactions.read', 'root'] }, 'parameter_invalid', 'permissions'],
    [{ permissions: ['bulk:mint'] }, 'parameter_invalid', 'permissions'],
    [{ type: 'enterprise', permissions: ['admin.*'] }, 'parameter_invalid', 'scopes'],
    [{ type: 'enterprise', permissions: [] }, 'parameter_missing', 'scopes'],
    [{ type: 'enterprise', permissions: ['bulk:mint'], rateLimit: 10 }, 'parameter_invalid', 'rateLimit'],
    [
      { type: 'enterprise', permissions: ['bulk:mint'], requestsPerHour: 10, burstLimit: 11 },
      'parameter_invalid',
      'rateLimit.burstLimit',
    ],
    [
      { type: 'enterprise', permissions: ['bulk:mint'], requestsPerHour: 2_000_000 },
      'parameter_invalid',
      'rateLimit.requestsPerHour',
    ],
    [{ requestsPerHour: 10 }, 'parameter_invalid', 'rateLimit'],
    [{ rateLimit: -1 }, 'parameter_invalid', 'rateLimit'],
    [{ rateLimit: 100_001 }, 'parameter_invalid', 'rateLimit'],
    [{ rateLimit: 1.5 }, 'parameter_invalid', 'rateLimit'],
    [{ type: 'restricted', expiresAt: '2030-07-01T00:00:00Z' }, 'parameter_missing', 'rateLimit'],
    [{ expiresAt: '2030-06-01T11:59:59Z' }, 'parameter_invalid', 'expiresAt'],
    [{ expiresAt: 'tomorrow' }, 'parameter_invalid', 'expiresAt'],
    [{ expiresAt: '2031-02-30T00:00:00Z' }, 'parameter_invalid', 'expiresAt'],
    [{ allowedIps: ['10.0.0.0/8', 'not-an-ip'] }, 'parameter_invalid', 'allowedIps'],
  ] as [Partial<CreateKeyInput>, string, string][])('refuses %j with %s naming %s', (over, code, param) => {
    const err = refused(() => create(over));
    expect(err.code).toBe(code);
    expect(err.param).toBe(param);
  });

  it('a test-mode caller may create only test keys', () => {
    expect(create({ type: 'test' }, false).type).toBe('test');
    expect(refused(() => create({ type: 'production' }, false)).code).toBe('insufficient_permissions');
  });

  it('an enterprise key takes its maker’s mode, so test mode can make one', () => {
    const ent = { type: 'enterprise', permissions: ['bulk:mint'], rateLimit: null };
    expect(create(ent, false).livemode).toBe(false);
    expect(create(ent, true).livemode).toBe(true);
  });

  it('a restricted key may have no expiry (spec: "optional expiry; null when none")', () => {
    expect(create({ type: 'restricted', rateLimit: 10, expiresAt: null }).expiresAt).toBeNull();
  });
});

describe('update validation', () => {
  const key: ApiKeyRecord = {
    id: 'apikey_x',
    enterpriseId: 'ent_x',
    name: 'key',
    type: 'production',
    livemode: true,
    permissions: ['transactions.read'],
    limits: { perMinute: 1000, perHour: 50_000, burst: 100 },
    allowedIps: [],
    keyPrefix: 'pk_live_abcd',
    expiresAt: null,
    createdAt: now,
    createdBy: 'user_x',
    actsFor: 'user_x',
    creatorRole: 'owner',
    lastUsedAt: null,
    revokedAt: null,
  };

  it('returns only what changes', () => {
    expect(validateUpdate(key, { name: 'key', permissions: ['transactions.read'], rateLimit: 1000 })).toEqual(
      {},
    );
    expect(validateUpdate(key, { name: 'renamed', rateLimit: 10, allowedIps: ['::1'] })).toEqual({
      name: 'renamed',
      limits: { perMinute: 10, perHour: 500, burst: 10 },
      allowedIps: ['::1'],
    });
  });

  it('refuses what create refuses, and a per-minute rate on an enterprise key', () => {
    expect(refused(() => validateUpdate(key, { permissions: [] })).param).toBe('permissions');
    expect(refused(() => validateUpdate(key, { rateLimit: 0 })).param).toBe('rateLimit');
    expect(refused(() => validateUpdate({ ...key, type: 'enterprise' }, { rateLimit: 5 })).param).toBe(
      'rateLimit',
    );
    expect(
      refused(() => validateUpdate({ ...key, type: 'enterprise' }, { permissions: ['transactions.read'] }))
        .param,
    ).toBe('scopes');
  });
});

describe('time and grace', () => {
  it('parses strict ISO 8601 only', () => {
    expect(parseIsoInstant('2030-01-02')?.toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(parseIsoInstant('2030-01-02T03:04:05.678+02:00')?.toISOString()).toBe('2030-01-02T01:04:05.678Z');
    for (const bad of [
      '2030-1-2',
      '2030-02-29',
      '2030-01-02T24:00:00Z',
      '2030-01-02T03:04:05',
      'Jan 2 2030',
      '1893456000',
    ])
      expect(parseIsoInstant(bad)).toBeNull();
  });

  it('rotation grace defaults to 24 h, allows 0, and is capped at 7 days', () => {
    expect(graceSeconds(undefined)).toBe(86_400);
    expect(graceSeconds(0)).toBe(0);
    expect(graceSeconds(604_800)).toBe(604_800);
    expect(refused(() => graceSeconds(604_801)).param).toBe('gracePeriodSeconds');
    expect(refused(() => graceSeconds(-1)).param).toBe('gracePeriodSeconds');
  });
});
