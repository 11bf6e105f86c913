// Certificate search and the gift list (issue 34) on a real PostgreSQL, handlers in-process:
// each criterion (reference number as typed, product name or GTIN, owner e-mail through a
// voucher and a gift), only ever inside the caller's enterprise and mode, newest first and
// paged; bad queries refused as parameter errors; the e-mail's blind index never the e-mail,
// and its backfill idempotent. The gift list: newest first, by status, paged, scoped.
import { describe, expect, it } from '@jest/globals';
import { createLogger, Encryptor, HallmarkError, sha256Hex } from '@hallmark/kit';
import { reencryptColumn } from '@hallmark/kit/reencrypt';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { RecipientEmailIndex } from '../src/domain/email-index.js';
import { runEmailIndexBackfill } from '../src/search/workers/email-index.js';
import {
  CALL,
  gift,
  gifts,
  KEYS,
  mint,
  pool,
  principal,
  revokeGift,
  search,
  searchStore,
  voucher,
} from './search-fixture.js';

const GTIN = '09506000134352';
const find = (
  p: Principal,
  q: { reference_number?: string; product?: string; email?: string },
  page = 1,
  limit = 20,
) => search.searchCertificates({ principal: p, ...q, page: { page, limit } }, CALL);
const ids = async (p: Principal, q: Parameters<typeof find>[1]) =>
  (await find(p, q)).certificates.map((c) => c.id);

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof HallmarkError)) throw err;
    return { code: err.code, param: err.param };
  }
  throw new Error('expected a refusal');
}

describe('SearchCertificates', () => {
  const brand = principal();
  const rival = principal();
  const brandTest = principal(brand.enterprise_id, false);
  let lamp: string, chair: string, gifted: string, reference: string;

  it('finds a certificate by its voucher’s reference number as a person types it, with the number', async () => {
    lamp = await mint(brand, 'Desk Lamp 100%', { gtin: GTIN, serial: 'S1' });
    reference = await voucher(brand, lamp, 'Jane.Doe@Example.test');
    const typed = reference.toLowerCase().replace(/-/g, ' ').replace(/^hm /, '');
    const res = await find(brand, { reference_number: typed });
    expect(res.certificates).toEqual([
      expect.objectContaining({
        id: lamp,
        name: 'Desk Lamp 100%',
        status: 'pending',
        gtin: GTIN,
        serial: 'S1',
      }),
    ]);
    expect(res.certificates[0]!.reference_number).toBe(reference);
    expect(res.page).toEqual({ page: 1, limit: 20, total: 1, total_pages: 1 });
  });

  it('finds by product: part of the name in any case (wildcards literal), or the GTIN in any length', async () => {
    chair = await mint(brand, 'Oak Chair');
    expect(await ids(brand, { product: 'desk LAMP' })).toEqual([lamp]);
    expect(await ids(brand, { product: '100%' })).toEqual([lamp]);
    expect(await ids(brand, { product: '%%' })).toEqual([]);
    expect(await ids(brand, { product: 'oak' })).toEqual([chair]);
    expect(await ids(brand, { product: '9506000134352' })).toEqual([lamp]);
  });

  it('finds by the owner’s e-mail through a voucher and through a gift, in any case', async () => {
    gifted = await mint(brand, 'Gifted Vase');
    await gift(brand, gifted, 'jane.doe@example.test');
    expect(await ids(brand, { email: '  JANE.DOE@example.TEST ' })).toEqual([gifted, lamp]);
    expect(await ids(brand, { email: 'john@example.test' })).toEqual([]);
  });

  it('needs every criterion given to match', async () => {
    expect(await ids(brand, { email: 'jane.doe@example.test', product: 'vase' })).toEqual([gifted]);
    expect(await ids(brand, { reference_number: reference, product: 'chair' })).toEqual([]);
  });

  it('never answers another enterprise’s or mode’s certificates', async () => {
    const theirs = await mint(rival, 'Desk Lamp 100%', { gtin: GTIN, serial: 'S2' });
    await voucher(rival, theirs, 'jane.doe@example.test');
    const testLamp = await mint(brandTest, 'Desk Lamp 100%', { gtin: GTIN, serial: 'S1' });
    await gift(brandTest, testLamp, 'jane.doe@example.test');
    for (const q of [
      { reference_number: reference },
      { product: 'lamp' },
      { product: GTIN },
      { email: 'jane.doe@example.test' },
    ]) {
      expect(await ids(rival, q)).not.toContain(lamp);
      expect(await ids(brandTest, q)).not.toContain(lamp);
      expect(await ids(brand, q)).not.toContain(theirs);
      expect(await ids(brand, q)).not.toContain(testLamp);
    }
    expect(await ids(rival, { reference_number: reference })).toEqual([]);
    expect(await ids(rival, { email: 'jane.doe@example.test' })).toEqual([theirs]);
    expect(await ids(brandTest, { email: 'jane.doe@example.test' })).toEqual([testLamp]);
  });

  it('pages newest first, and past the last page answers none with the total', async () => {
    const p = principal();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await mint(p, `Ring ${i}`));
    const newest = [...made].reverse();
    const one = await find(p, { product: 'ring' }, 1, 2);
    const three = await find(p, { product: 'ring' }, 3, 2);
    expect(one.certificates.map((c) => c.id)).toEqual(newest.slice(0, 2));
    expect((await find(p, { product: 'ring' }, 2, 2)).certificates.map((c) => c.id)).toEqual(
      newest.slice(2, 4),
    );
    expect(three.certificates.map((c) => c.id)).toEqual(newest.slice(4));
    expect(one.page).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(await find(p, { product: 'ring' }, 4, 2)).toEqual({
      certificates: [],
      page: { page: 4, limit: 2, total: 5, total_pages: 3 },
    });
  });

  it('refuses a query without criteria, malformed ones and pages out of range', async () => {
    const cases: [Parameters<typeof find>[1], string, string][] = [
      [{}, 'parameter_missing', 'query'],
      [{ reference_number: ' ', product: '', email: '' }, 'parameter_missing', 'query'],
      [{ reference_number: 'HM-0000-0000-Q' }, 'parameter_invalid', 'referenceNumber'],
      [{ product: '9506000134353' }, 'parameter_invalid', 'product'],
      [{ product: '123' }, 'parameter_invalid', 'product'],
      [{ product: 'x' }, 'parameter_invalid', 'product'],
      [{ email: 'not-an-email' }, 'parameter_invalid', 'email'],
    ];
    for (const [q, code, param] of cases)
      expect([q, await refusal(() => find(brand, q))]).toEqual([q, { code, param }]);
    expect(await refusal(() => find(brand, { product: 'lamp' }, 1, 101))).toEqual({
      code: 'parameter_invalid',
      param: 'limit',
    });
  });
});

describe('the recipient e-mail index', () => {
  it('holds a keyed HMAC, never the e-mail (nor its plain hash), in vouchers and gifts', async () => {
    const { rows } = await pool.query<{ hmac: string; row: string }>(
      `SELECT recipient_email_hmac AS hmac, row_to_json(v)::text AS row FROM certificate_vouchers v
       UNION ALL SELECT recipient_email_hmac, row_to_json(g)::text FROM gifts g`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const enc = new Encryptor(KEYS);
    const index = new RecipientEmailIndex(KEYS);
    for (const r of rows) {
      expect(r.hmac).toMatch(/^[0-9a-f]{64}$/);
      expect(r.row.toLowerCase()).not.toContain('example.test');
      expect(r.hmac).toBe(index.of(enc.decrypt(JSON.parse(r.row).recipient_email_enc)));
      expect(r.row).not.toContain(sha256Hex('jane.doe@example.test'));
    }
  });

  it('is backfilled for rows written before it, once (a second pass finds nothing)', async () => {
    const p = principal();
    const c = await mint(p, 'Old Watch');
    await gift(p, c, 'Old.Owner@example.test');
    await pool.query(`UPDATE gifts SET recipient_email_hmac = NULL WHERE certificate_id = $1`, [c]);
    await pool.query(`UPDATE certificate_vouchers SET recipient_email_hmac = NULL`);
    expect(await ids(p, { email: 'old.owner@example.test' })).toEqual([]);
    const deps = {
      store: searchStore,
      encryptor: new Encryptor(KEYS),
      index: new RecipientEmailIndex(KEYS),
      log: createLogger('t', 'silent'),
      pageSize: 2,
    };
    const first = await runEmailIndexBackfill(deps);
    expect(first.indexed).toBeGreaterThanOrEqual(3);
    expect(first.unreadable).toBe(0);
    expect(await ids(p, { email: 'old.owner@example.test' })).toEqual([c]);
    expect(await runEmailIndexBackfill(deps)).toEqual({ indexed: 0, unreadable: 0, rekeyed: false });
  });

  it('is made again under the new key after a rotation, so search by e-mail survives dropping the old key', async () => {
    const p = principal();
    const c = await mint(p, 'Rotated Watch');
    await gift(p, c, 'Kept.Owner@example.test');
    await voucher(p, await mint(p, 'Rotated Ring'), 'kept.owner@example.test');
    const deps = (keys: string) => ({
      store: searchStore,
      encryptor: new Encryptor(keys),
      index: new RecipientEmailIndex(keys),
      log: createLogger('t', 'silent'),
      pageSize: 2,
    });
    await runEmailIndexBackfill(deps(KEYS)); // the key of the rows written so far, recorded
    const newest = Encryptor.generateKey();
    const rotated = `${newest},${KEYS}`;
    const first = await runEmailIndexBackfill(deps(rotated));
    expect(first).toMatchObject({ rekeyed: true, unreadable: 0 });
    expect(first.indexed).toBeGreaterThanOrEqual(2);
    // A pod still on the old key list writes during the rollout: its row is under the old key.
    await gift(p, await mint(p, 'Rotated Cup'), 'kept.owner@example.test');
    // Not re-encrypted yet (step 3 of the runbook): the re-keying is not recorded, passes go on.
    expect(await runEmailIndexBackfill(deps(rotated))).toMatchObject({ rekeyed: true, indexed: 1 });
    // Step 3 for the e-mails (the rest of this shared database stays readable by the fixture).
    for (const table of ['certificate_vouchers', 'gifts'])
      await reencryptColumn(pool, new Encryptor(rotated), { table, column: 'recipient_email_enc' });
    expect(await runEmailIndexBackfill(deps(rotated))).toMatchObject({ rekeyed: true, indexed: 0 });
    // Recorded: the next pass under the same keys has nothing to do.
    expect(await runEmailIndexBackfill(deps(rotated))).toEqual({ indexed: 0, unreadable: 0, rekeyed: false });
    // With the old key gone, every row holds the index a search under the new key alone looks for.
    const alone = new RecipientEmailIndex(newest).of('kept.owner@example.test');
    const { rows } = await pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM gifts WHERE recipient_email_hmac = $1)::int
            + (SELECT count(*) FROM certificate_vouchers WHERE recipient_email_hmac = $1)::int AS n`,
      [alone],
    );
    expect(rows[0]!.n).toBe(3);
  });
});

describe('ListGifts', () => {
  const list = (p: Principal, status?: string, page = 1, limit = 20) =>
    gifts.listGifts({ principal: p, status, page: { page, limit } }, CALL);

  it('lists the enterprise’s gifts newest first, by status, paged, and never another’s or another mode’s', async () => {
    const p = principal();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push(await gift(p, await mint(p, `Cup ${i}`), `c${i}@example.test`));
    await revokeGift(made[0]!);
    for (const other of [principal(), principal(p.enterprise_id, false)])
      await gift(other, await mint(other, 'Elsewhere'), 'x@example.test');
    const all = await list(p);
    expect(all.gifts.map((g) => g.id)).toEqual([...made].reverse());
    expect(all.gifts[2]).toMatchObject({ id: made[0], status: 'revoked', livemode: true });
    expect(all.page).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
    expect((await list(p, 'pending')).gifts.map((g) => g.id)).toEqual([made[2], made[1]]);
    expect((await list(p, 'revoked')).gifts.map((g) => g.id)).toEqual([made[0]]);
    expect((await list(p, undefined, 2, 2)).gifts.map((g) => g.id)).toEqual([made[0]]);
    expect(await list(principal())).toEqual({
      gifts: [],
      page: { page: 1, limit: 20, total: 0, total_pages: 0 },
    });
    expect(await refusal(() => list(p, 'expired'))).toEqual({ code: 'parameter_invalid', param: 'status' });
    expect(await refusal(() => list(p, undefined, 0, 500))).toEqual({
      code: 'parameter_invalid',
      param: 'limit',
    });
  });
});
