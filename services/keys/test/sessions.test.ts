// ResolveSession against real PostgreSQL: provisioning on first use, exactly once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CALL, newEnterprise, openHarness, outboxTypes, refusal, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await openHarness('keys_sessions');
});
afterAll(() => h.close());

const resolve = (ent: string, sub: string, over: { email?: string; role?: string } = {}) =>
  h.rpc.resolveSession(
    { subject: sub, enterprise_id: ent, email: over.email ?? '', role: over.role ?? 'admin' },
    CALL,
  );

describe('ResolveSession', () => {
  it('first use provisions the enterprise and the user, and records user.created with the change', async () => {
    const ent = newEnterprise();
    const res = await resolve(ent, 'alice', { email: 'alice@example.test' });
    expect(res).toEqual({
      user_id: expect.stringMatching(/^user_[0-9A-Za-z]{24}$/),
      enterprise_id: ent,
      role: 'admin',
    });
    const { rows } = await h.pool.query(
      'SELECT e.id AS ent, u.email, u.role FROM users u JOIN enterprises e ON e.id = u.enterprise_id WHERE u.id = $1',
      [res.user_id],
    );
    expect(rows[0]).toEqual({ ent, email: 'alice@example.test', role: 'admin' });
    const { rows: events } = await h.pool.query(
      "SELECT payload FROM outbox WHERE type = 'user.created' AND payload->'data'->>'id' = $1",
      [res.user_id],
    );
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      enterprise_id: ent,
      data: { id: res.user_id, email: 'alice@example.test', role: 'admin', enterprise_id: ent },
    });
  });

  it('concurrent first use provisions one user and records one user.created', async () => {
    const ent = newEnterprise();
    const before = (await outboxTypes(h.pool)).length;
    const results = await Promise.all(Array.from({ length: 12 }, () => resolve(ent, 'bob')));
    expect(new Set(results.map((r) => r.user_id)).size).toBe(1);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM users WHERE enterprise_id = $1', [
      ent,
    ]);
    expect(rows[0].n).toBe(1);
    expect((await outboxTypes(h.pool)).slice(before)).toEqual(['user.created']);
  });

  it('a changed role or email records user.updated; an unchanged sign-in writes nothing', async () => {
    const ent = newEnterprise();
    const first = await resolve(ent, 'carol', { email: 'c@example.test', role: 'member' });
    const before = (await outboxTypes(h.pool)).length;
    await resolve(ent, 'carol', { email: 'c@example.test', role: 'member' });
    await resolve(ent, 'carol', { role: 'member' }); // no email claim: the stored one stays
    expect((await outboxTypes(h.pool)).length).toBe(before);
    const promoted = await resolve(ent, 'carol', { role: 'owner' });
    expect(promoted).toEqual({ user_id: first.user_id, enterprise_id: ent, role: 'owner' });
    expect((await outboxTypes(h.pool)).slice(before)).toEqual(['user.updated']);
    const { rows } = await h.pool.query('SELECT email, role FROM users WHERE id = $1', [first.user_id]);
    expect(rows[0]).toEqual({ email: 'c@example.test', role: 'owner' });
  });

  it('the same subject in two enterprises is two users', async () => {
    const a = await resolve(newEnterprise(), 'dave');
    const b = await resolve(newEnterprise(), 'dave');
    expect(a.user_id).not.toBe(b.user_id);
  });

  it('a token whose ent claim is not an enterprise id is refused as invalid_token, writing nothing', async () => {
    const before = (await outboxTypes(h.pool)).length;
    expect((await refusal(resolve('acme', 'eve'))).code).toBe('invalid_token');
    expect((await refusal(resolve(newEnterprise(), 'eve', { role: 'superuser' }))).code).toBe(
      'invalid_token',
    );
    expect((await outboxTypes(h.pool)).length).toBe(before);
  });
});
