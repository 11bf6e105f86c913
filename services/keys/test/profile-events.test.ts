// The issuer profile announced on the bus: every save and every re-check of the proof writes
// `enterprise_profile.updated` (the profile as it now stands, in the kit's schema) with the
// change, and migration 0007 announces the profiles saved before the event existed, once.
// The certificates service keeps its read model of issuers from these (its own test proves the
// reading side; e2e issuer-profile.test.ts the whole path).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EVENT_SCHEMAS } from '@hallmark/kit';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CALL, MIGRATIONS, newEnterprise, openHarness, signIn, type Harness } from './harness.js';

let h: Harness;
/** What the stand-in proof check answers. */
let verified = true;

beforeAll(async () => {
  h = await openHarness('keys_profile_events', async () => ({
    verified,
    detail: verified ? '' : 'not named',
  }));
});
afterAll(async () => h?.close());

interface Row {
  id: string;
  subject: string;
  payload: { id: string; type: string; enterprise_id: string; data: unknown };
}

async function announced(enterpriseId: string): Promise<Row[]> {
  const { rows } = await h.pool.query<Row>(
    `SELECT id, subject, payload FROM outbox WHERE type = 'enterprise_profile.updated'
       AND payload->>'enterprise_id' = $1 ORDER BY seq`,
    [enterpriseId],
  );
  return rows;
}

const input = { display_name: 'Maison Test', website: 'https://maison.example/', indexable: true };

describe('enterprise_profile.updated', () => {
  it('a save and a re-check each announce the profile as it now stands, in the schema, newest last', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    verified = true;
    await h.rpc.putEnterpriseProfile({ principal: owner.principal, ...input }, CALL);
    h.clock.advance(1000);
    verified = false;
    await h.rpc.checkEnterpriseDomain({ principal: owner.principal }, CALL);
    const rows = await announced(owner.enterpriseId);
    expect(rows.map((r) => r.subject)).toEqual([
      'hallmark.keys.enterprise_profile.updated',
      'hallmark.keys.enterprise_profile.updated',
    ]);
    const [saved, checked] = rows.map((r) =>
      EVENT_SCHEMAS['enterprise_profile.updated'].parse(r.payload.data),
    );
    expect(saved!.object).toEqual({
      enterprise_id: owner.enterpriseId,
      display_name: 'Maison Test',
      website: 'https://maison.example/',
      domain_verified: true,
      logo_sha256: null,
      logo_width: 0,
      logo_height: 0,
      indexable: true,
      as_of: expect.any(String),
    });
    expect(checked!.object).toMatchObject({ domain_verified: false });
    expect(Date.parse(checked!.object.as_of)).toBeGreaterThan(Date.parse(saved!.object.as_of));
  });

  it('a refused save announces nothing', async () => {
    const member = await signIn(h, { ent: newEnterprise(), role: 'member' });
    await expect(
      h.rpc.putEnterpriseProfile({ principal: member.principal, ...input }, CALL),
    ).rejects.toMatchObject({
      code: 'insufficient_permissions',
    });
    expect(await announced(member.enterpriseId)).toEqual([]);
  });

  it('migration 0007 announces a profile saved before the event existed, once, in the schema', async () => {
    const owner = await signIn(h, { ent: newEnterprise(), role: 'owner' });
    // A profile as an older keys wrote it: no event.
    await h.pool.query(
      `INSERT INTO enterprise_profiles (enterprise_id, display_name, website, domain_verified,
         domain_checked_at, updated_at, logo_sha256, logo_width, logo_height)
       VALUES ($1, 'Old Maison', 'https://old.example/', true, now(), now() - interval '1 day', $2, 120, 40)`,
      [owner.enterpriseId, 'ab'.repeat(32)],
    );
    const backfill = readFileSync(path.join(MIGRATIONS, '0007_enterprise_profile_announced.sql'), 'utf8');
    await h.pool.query(backfill);
    await h.pool.query(backfill); // a second run (another replica) adds nothing
    const rows = await announced(owner.enterpriseId);
    expect(rows).toHaveLength(1);
    const { payload, id } = rows[0]!;
    expect(payload).toMatchObject({
      id,
      type: 'enterprise_profile.updated',
      source: 'keys',
      enterprise_id: owner.enterpriseId,
      livemode: true,
    });
    expect(id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(EVENT_SCHEMAS['enterprise_profile.updated'].parse(payload.data).object).toEqual({
      enterprise_id: owner.enterpriseId,
      display_name: 'Old Maison',
      website: 'https://old.example/',
      domain_verified: true,
      logo_sha256: 'ab'.repeat(32),
      logo_width: 120,
      logo_height: 40,
      indexable: false,
      as_of: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});
