// Who sees and does what: enterprises, test mode, roles, shares (real PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { hashSecret } from '../src/domain/secret.js';
import { newId } from '@hallmark/kit';
import {
  CALL,
  createRequest,
  keyPrincipal,
  newEnterprise,
  openHarness,
  refusal,
  signIn,
  type Harness,
  type Session,
} from './harness.js';

let h: Harness;
let ent: string;
let owner: Session; // enterprise owner role
let creator: Session; // member who creates the key
let viewer: Session; // member with a read share
let rotator: Session; // member with a rotate share
let outsider: Session; // member without a share
let keyId: string;

beforeAll(async () => {
  h = await openHarness('keys_access');
  ent = newEnterprise();
  owner = await signIn(h, { ent, sub: 'owner', role: 'owner' });
  creator = await signIn(h, { ent, sub: 'creator', role: 'member' });
  viewer = await signIn(h, { ent, sub: 'viewer', role: 'member' });
  rotator = await signIn(h, { ent, sub: 'rotator', role: 'member' });
  outsider = await signIn(h, { ent, sub: 'outsider', role: 'member' });
  keyId = (await h.rpc.createKey(createRequest(creator.principal, { name: 'shared key' }), CALL)).key!.id;
});
afterAll(() => h.close());

const get = (p: Principal, id = keyId) => h.rpc.getKey({ principal: p, key_id: id }, CALL);
const rotate = (p: Principal, id = keyId) =>
  h.rpc.rotateKey({ principal: p, key_id: id, ip_address: '' }, CALL);
const revoke = (p: Principal, id = keyId) =>
  h.rpc.revokeKey({ principal: p, key_id: id, ip_address: '' }, CALL);
const share = (p: Principal, userIds: string[], permissions: string[], id = keyId) =>
  h.rpc.shareKey({ principal: p, key_id: id, user_ids: userIds, permissions, ip_address: '10.1.1.1' }, CALL);
const rename = (p: Principal, name: string, id = keyId) =>
  h.rpc.updateKey(
    {
      principal: p,
      key_id: id,
      name,
      permissions: [],
      set_permissions: false,
      allowed_ips: [],
      set_allowed_ips: false,
      ip_address: '',
    },
    CALL,
  );

describe('enterprise isolation', () => {
  it('another enterprise gets not-found for my key, on every RPC', async () => {
    const stranger = await signIn(h, { ent: newEnterprise(), sub: 'stranger', role: 'owner' });
    const p = stranger.principal;
    const attempts = [
      () => get(p),
      () => rename(p, 'mine now'),
      () => rotate(p),
      () => revoke(p),
      () => share(p, [stranger.userId], ['read']),
      () => h.rpc.getUsage({ principal: p, key_id: keyId, period: '7d' }, CALL),
      () => h.rpc.listAuditLogs({ principal: p, key_id: keyId, limit: 0 }, CALL),
    ];
    for (const attempt of attempts) {
      const err = await refusal(attempt());
      expect([err.code, err.extras.resource, err.extras.resource_id]).toEqual([
        'resource_not_found',
        'api_key',
        keyId,
      ]);
    }
    expect((await h.rpc.listKeys({ principal: p }, CALL)).keys).toEqual([]);
    expect((await refusal(get(owner.principal, 'apikey_nope'))).code).toBe('resource_not_found');
  });

  it('a principal of another enterprise cannot pass as one of its users', async () => {
    const forged = { ...owner.principal, enterprise_id: newEnterprise() };
    expect((await refusal(h.rpc.listKeys({ principal: forged }, CALL))).code).toBe(
      'insufficient_permissions',
    );
  });
});

describe('test mode and API-key callers', () => {
  it('a test-mode key sees only test keys and may create only test keys', async () => {
    const testKey = await h.rpc.createKey(
      createRequest(owner.principal, { type: 'test', permissions: ['admin.*'] }),
      CALL,
    );
    const testPrincipal = keyPrincipal(ent, testKey.key!.id, ['admin.*'], false);
    const listed = await h.rpc.listKeys({ principal: testPrincipal }, CALL);
    expect(listed.keys.length).toBeGreaterThan(0);
    expect(listed.keys.every((k) => !k.livemode)).toBe(true);
    expect((await refusal(get(testPrincipal))).code).toBe('resource_not_found');
    expect((await refusal(h.rpc.createKey(createRequest(testPrincipal), CALL))).code).toBe(
      'insufficient_permissions',
    );
    const made = await h.rpc.createKey(createRequest(testPrincipal, { type: 'test' }), CALL);
    expect(made.key).toMatchObject({ livemode: false, created_by: testKey.key!.id, access_level: 'owner' });
  });

  it('an owner-made admin.* key manages every key; without admin.* a key manages nothing', async () => {
    const made = await h.rpc.createKey(createRequest(owner.principal, { permissions: ['admin.*'] }), CALL);
    const admin = keyPrincipal(ent, made.key!.id, ['admin.*']);
    expect((await get(admin)).access_level).toBe('owner');
    const narrow = keyPrincipal(ent, made.key!.id, ['transactions.*']);
    const err = await refusal(get(narrow));
    expect([err.code, err.extras.required_permission]).toEqual(['insufficient_permissions', 'admin.*']);
  });

  it("a member-made admin.* key acts with the member's level: it cannot see or touch the owner's keys", async () => {
    const ownersKey = (await h.rpc.createKey(createRequest(owner.principal, { name: 'owner key' }), CALL))
      .key!;
    const member = await signIn(h, { ent, sub: 'key-maker', role: 'member' });
    const made = await h.rpc.createKey(createRequest(member.principal, { permissions: ['admin.*'] }), CALL);
    const memberKey = keyPrincipal(ent, made.key!.id, ['admin.*']);
    for (const attempt of [
      () => get(memberKey, ownersKey.id),
      () => rename(memberKey, 'taken', ownersKey.id),
      () => rotate(memberKey, ownersKey.id),
      () => revoke(memberKey, ownersKey.id),
    ]) {
      expect((await refusal(attempt())).code).toBe('resource_not_found');
    }
    const listed = (await h.rpc.listKeys({ principal: memberKey }, CALL)).keys.map((k) => k.id);
    expect(listed).toEqual([made.key!.id]);
    // Keys it makes carry the same bound: a chain of keys never climbs above its maker.
    const child = await h.rpc.createKey(createRequest(memberKey, { permissions: ['admin.*'] }), CALL);
    const childKey = keyPrincipal(ent, child.key!.id, ['admin.*']);
    expect((await refusal(get(childKey, ownersKey.id))).code).toBe('resource_not_found');
    expect((await get(childKey, made.key!.id)).access_level).toBe('owner');
    // The owner's key is untouched and the owner still manages the member's key.
    expect((await get(owner.principal, ownersKey.id)).status).toBe('active');
    expect((await get(owner.principal, made.key!.id)).access_level).toBe('owner');
  });

  it('a key id this enterprise does not know manages nothing (fail closed)', async () => {
    const ghost = keyPrincipal(ent, 'apikey_AAAAAAAAAAAAAAAAAAAAAAAA', ['admin.*']);
    expect((await refusal(get(ghost))).code).toBe('insufficient_permissions');
  });
});

describe('sharing levels', () => {
  it('a member sees only the keys they created or that were shared with them', async () => {
    expect((await refusal(get(outsider.principal))).code).toBe('resource_not_found');
    expect((await h.rpc.listKeys({ principal: outsider.principal }, CALL)).keys).toEqual([]);
    expect((await get(creator.principal)).access_level).toBe('owner');
    expect((await get(owner.principal)).access_level).toBe('owner');
  });

  it('share targets are users this enterprise knows, named by their token subject (or row id)', async () => {
    const empty = await refusal(share(creator.principal, [], ['read']));
    expect([empty.code, empty.param]).toEqual(['parameter_missing', 'userIds']);
    const res = await share(creator.principal, ['viewer'], ['read']);
    expect(res.shares).toEqual([
      { user_id: 'viewer', level: 'viewer', permissions: ['read'], created_at: expect.any(String) },
    ]);
    const again = await share(creator.principal, [rotator.userId], ['read', 'rotate']);
    expect(Object.fromEntries(again.shares.map((s) => [s.user_id, s.level]))).toEqual({
      viewer: 'viewer',
      rotator: 'admin',
    });
  });

  it('refuses malformed user ids (400 userIds) and users not of this enterprise (404 userIds); nothing is written', async () => {
    const elsewhere = await signIn(h, { ent: newEnterprise(), sub: 'elsewhere-only' });
    const state = async () => ({
      users: (await h.pool.query('SELECT id FROM users WHERE enterprise_id = $1 ORDER BY id', [ent])).rows,
      shares: (await h.pool.query('SELECT * FROM key_shares WHERE key_id = $1 ORDER BY user_id', [keyId]))
        .rows,
      audit: (await h.pool.query('SELECT count(*)::int AS n FROM audit_logs WHERE key_id = $1', [keyId]))
        .rows,
      events: (await h.pool.query('SELECT count(*)::int AS n FROM outbox')).rows,
    });
    const before = await state();
    for (const ids of [[''], ['has space'], ['tab\there'], ['viewer', 'x'.repeat(256)]]) {
      const err = await refusal(share(creator.principal, ids, ['read']));
      expect([err.code, err.param]).toEqual(['parameter_invalid', 'userIds']);
    }
    // Another enterprise's user by row id or by sub, a sub nobody signed in with, a made-up row
    // id: each alone or next to a valid colleague.
    for (const ids of [
      [elsewhere.userId],
      ['elsewhere-only'],
      ['never-signed-in'],
      ['viewer', newId('user')],
      ['viewer', 'junk!!'],
    ]) {
      const err = await refusal(share(creator.principal, ids, ['read']));
      expect([err.code, err.param]).toEqual(['resource_not_found', 'userIds']);
    }
    expect(await state()).toEqual(before);
  });

  it('a viewer sees details but may not rotate, update, share or delete', async () => {
    const seen = await get(viewer.principal);
    expect(seen.access_level).toBe('viewer');
    expect((await h.rpc.listKeys({ principal: viewer.principal }, CALL)).keys.map((k) => k.id)).toEqual([
      keyId,
    ]);
    await h.rpc.getUsage({ principal: viewer.principal, key_id: keyId, period: '24h' }, CALL);
    const attempts = [
      () => rotate(viewer.principal),
      () => rename(viewer.principal, 'x'),
      () => share(viewer.principal, [outsider.userId], ['read']),
      () => revoke(viewer.principal),
    ];
    for (const attempt of attempts) expect((await refusal(attempt())).code).toBe('insufficient_permissions');
  });

  it('a rotate share (Admin) rotates and manages permissions but may not share or delete', async () => {
    expect((await get(rotator.principal)).access_level).toBe('admin');
    const rotated = await rotate(rotator.principal);
    expect(rotated.key!.access_level).toBe('admin');
    await h.rpc.verifyKey({ secret_hash: hashSecret(rotated.secret), ip_address: '' }, CALL);
    expect((await rename(rotator.principal, 'renamed by admin')).name).toBe('renamed by admin');
    for (const attempt of [
      () => share(rotator.principal, [outsider.userId], ['read']),
      () => revoke(rotator.principal),
    ])
      expect((await refusal(attempt())).code).toBe('insufficient_permissions');
  });

  it('only the creator or an enterprise owner/admin deletes; the enterprise owner may delete a member key', async () => {
    const other = (await h.rpc.createKey(createRequest(creator.principal, { name: 'second' }), CALL)).key!.id;
    expect((await revoke(owner.principal, other)).status).toBe('revoked');
    expect((await revoke(creator.principal)).status).toBe('revoked');
  });
});
