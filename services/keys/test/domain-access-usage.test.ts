// Pure rules of access (share levels, visibility), sessions and usage.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import {
  accessLevelOn,
  canDo,
  checkKeyManager,
  lowerRole,
  shareLevelFor,
  type Caller,
} from '../src/domain/access.js';
import { auditLimit } from '../src/domain/audit.js';
import { mergeSession, validateSessionClaims } from '../src/domain/session.js';
import {
  cleanUsageRecords,
  parseUsagePeriod,
  rollUp,
  summariseUsage,
  type UsageRecordInput,
} from '../src/domain/usage.js';

const ENT = 'ent_AAAAAAAAAAAAAAAAAAAAAAAA';
const member: Caller = {
  enterpriseId: ENT,
  livemode: true,
  actorId: 'user_m',
  actorType: 'user',
  role: 'member',
  actsFor: 'user_m',
};
const key = { enterpriseId: ENT, livemode: true, createdBy: 'user_creator', actsFor: 'user_creator' };

function refused(fn: () => unknown): HallmarkError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('access levels', () => {
  it('a key of another enterprise, or a live key for a test-mode caller, does not exist for the caller', () => {
    expect(accessLevelOn({ ...member, role: 'owner', enterpriseId: 'ent_other' }, key, null)).toBeNull();
    expect(accessLevelOn({ ...member, role: 'admin', livemode: false }, key, null)).toBeNull();
    expect(
      accessLevelOn({ ...member, role: 'admin', livemode: false }, { ...key, livemode: false }, null),
    ).toBe('owner');
  });

  it('a test key does not exist for a live API key; a live session sees it', () => {
    const testKey = { ...key, livemode: false };
    const liveKey: Caller = { ...member, role: 'owner', actorType: 'api_key', actorId: 'apikey_x' };
    expect(accessLevelOn(liveKey, testKey, null)).toBeNull();
    expect(accessLevelOn(liveKey, key, null)).toBe('owner');
    expect(accessLevelOn({ ...member, role: 'owner' }, testKey, null)).toBe('owner');
  });

  it('the creator and enterprise owners/admins have full control; a member only what a share gives', () => {
    expect(accessLevelOn({ ...member, actorId: 'user_creator' }, key, null)).toBe('owner');
    expect(accessLevelOn({ ...member, role: 'admin' }, key, null)).toBe('owner');
    expect(accessLevelOn(member, key, null)).toBeNull();
    expect(accessLevelOn(member, key, 'viewer')).toBe('viewer');
  });

  it("a member's API key has the member's level: owner on what the member made, nothing else", () => {
    const memberKey: Caller = {
      ...member,
      actorId: 'apikey_k',
      actorType: 'api_key',
      actsFor: 'user_creator',
    };
    expect(accessLevelOn(memberKey, key, null)).toBe('owner');
    expect(
      accessLevelOn(memberKey, { ...key, createdBy: 'user_owner', actsFor: 'user_owner' }, null),
    ).toBeNull();
    expect(lowerRole('owner', 'member')).toBe('member');
    expect(lowerRole('admin', 'owner')).toBe('admin');
  });

  it('viewers view; admins also rotate and update; only owners share and delete', () => {
    expect(['view', 'update', 'rotate', 'share', 'revoke'].map((a) => canDo('viewer', a as never))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(['view', 'update', 'rotate', 'share', 'revoke'].map((a) => canDo('admin', a as never))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(['view', 'update', 'rotate', 'share', 'revoke'].map((a) => canDo('owner', a as never))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('share permissions map read → viewer, rotate → admin, the highest winning', () => {
    expect(shareLevelFor(['read'])).toEqual({ level: 'viewer', permissions: ['read'] });
    expect(shareLevelFor(['rotate', 'read', 'read'])).toEqual({
      level: 'admin',
      permissions: ['read', 'rotate'],
    });
    expect(refused(() => shareLevelFor([])).code).toBe('parameter_missing');
    expect(refused(() => shareLevelFor(['delete'])).param).toBe('permissions');
  });

  it('managing keys needs admin.* and a whole principal', () => {
    const p = {
      enterpriseId: ENT,
      livemode: true,
      actorId: 'apikey_x',
      actorType: 'api_key',
      scopes: ['transactions.*'],
    };
    expect(refused(() => checkKeyManager(p)).code).toBe('insufficient_permissions');
    expect(refused(() => checkKeyManager(undefined)).code).toBe('missing_api_key');
    expect(refused(() => checkKeyManager({ ...p, actorType: 'robot', scopes: ['admin.*'] })).code).toBe(
      'missing_api_key',
    );
    expect(checkKeyManager({ ...p, scopes: ['admin.*'] }).actorType).toBe('api_key');
  });
});

describe('session claims', () => {
  it('default to the member role and keep a stored email the token omits', () => {
    const c = validateSessionClaims({ subject: 's', enterpriseId: ENT, email: '', role: '' });
    expect(c).toEqual({ subject: 's', enterpriseId: ENT, email: null, role: 'member' });
    expect(mergeSession({ email: 'a@x.test', role: 'member' }, c)).toEqual({
      email: 'a@x.test',
      role: 'member',
      changed: false,
    });
    expect(mergeSession({ email: 'a@x.test', role: 'admin' }, c).changed).toBe(true);
  });

  it('an unusable ent, sub or role claim is an invalid token', () => {
    for (const bad of [
      { subject: 's', enterpriseId: 'acme', email: '', role: 'owner' },
      { subject: '', enterpriseId: ENT, email: '', role: 'owner' },
      { subject: 's', enterpriseId: ENT, email: '', role: 'root' },
    ])
      expect(refused(() => validateSessionClaims(bad)).code).toBe('invalid_token');
  });
});

describe('usage', () => {
  const now = new Date('2030-06-01T12:30:00Z');
  const rec = (over: Partial<UsageRecordInput>): UsageRecordInput => ({
    keyId: 'apikey_k',
    method: 'get',
    path: '/api/v1/vouchers',
    statusCode: 200,
    latencyMs: 10,
    ipAddress: '203.0.113.9',
    at: '2030-06-01T12:10:00Z',
    ...over,
  });

  it('periods are 24h, 7d or 30d (default 7d); anything else names param period', () => {
    expect(parseUsagePeriod('').period).toBe('7d');
    expect(parseUsagePeriod('24h').since(now).toISOString()).toBe('2030-05-31T12:00:00.000Z');
    expect(refused(() => parseUsagePeriod('1y')).param).toBe('period');
  });

  it('malformed records are dropped, not fatal; skewed or missing times become now', () => {
    const clean = cleanUsageRecords(
      [
        rec({}),
        rec({ statusCode: 42 }),
        rec({ path: 'nope' }),
        rec({ method: 'G E T' }),
        rec({ at: '2031-01-01T00:00:00Z', ipAddress: 'x', path: '/a?b=1' }),
      ],
      now,
    );
    expect(clean).toHaveLength(2);
    expect(clean[0]!.method).toBe('GET');
    expect(clean[1]).toMatchObject({ at: now, ipAddress: null, path: '/a' });
  });

  it('roll-ups count successes below 400 and summaries give per-endpoint averages, busiest first', () => {
    const rows = rollUp(
      cleanUsageRecords(
        [
          rec({ latencyMs: 10 }),
          rec({ latencyMs: 30, statusCode: 404 }),
          rec({ method: 'POST', latencyMs: 5 }),
          rec({ at: '2030-06-01T11:59:00Z', latencyMs: 20 }),
        ],
        now,
      ),
    );
    expect(rows).toHaveLength(3);
    const s = summariseUsage(rows);
    expect(s).toEqual({
      totalRequests: 4,
      successfulRequests: 3,
      failedRequests: 1,
      averageLatency: 16.25,
      endpoints: [
        { path: '/api/v1/vouchers', method: 'GET', requests: 3, avgLatency: 20 },
        { path: '/api/v1/vouchers', method: 'POST', requests: 1, avgLatency: 5 },
      ],
    });
    expect(summariseUsage([]).averageLatency).toBe(0);
  });

  it('audit pages hold 1 to 100 entries, 0 meaning the default', () => {
    expect(auditLimit(0)).toBe(100);
    expect(auditLimit(5)).toBe(5);
    expect(refused(() => auditLimit(101)).param).toBe('limit');
  });
});
