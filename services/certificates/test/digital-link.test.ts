// GS1 identity of certificates (docs/digital-link.md): the Digital Link path rules
// ResolveDigitalLink applies (pure), and on a real PostgreSQL: GTIN + serial stored with the
// certificates of a batch, one (GTIN, serial) per mode across enterprises — a taken one refuses
// the whole batch and writes nothing — and resolution of a path to its certificate (live first).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { MintItem } from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import path from 'node:path';
import { parseDigitalLinkPath } from '../src/digital-link/domain.js';
import { DigitalLinkService } from '../src/digital-link/service.js';
import { DigitalLinkStore } from '../src/digital-link/store.js';
import { parseMintBatch } from '../src/domain/certificate.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { createVerificationHandlers } from '../src/verify/rpc.js';
import type { Verifier } from '../src/verify/service.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const HOLDER = '0x' + '55'.repeat(20);
const GTIN = '09506000134352';

/** The HallmarkError `run` throws (code, param, message), or a failure when it throws none. */
async function refusal(run: () => unknown): Promise<{ code: string; param?: string; message: string }> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof HallmarkError)) throw err;
    return { code: err.code, param: err.param, message: err.message };
  }
  throw new Error('expected a refusal');
}

describe('Digital Link path (parseDigitalLinkPath)', () => {
  it('reads a GTIN (normalised to 14 digits) and a percent-decoded serial', () => {
    expect(parseDigitalLinkPath('09506000134352/21/ABC')).toEqual({ gtin: GTIN, serial: 'ABC' });
    expect(parseDigitalLinkPath('9506000134352/21/A%2F1%25')).toEqual({ gtin: GTIN, serial: 'A/1%' });
    expect(parseDigitalLinkPath('96385074/21/x')).toEqual({ gtin: '00000096385074', serial: 'x' });
  });

  it('is GTIN-level without a serial, tolerates one trailing slash and accepts lot and variant in order', () => {
    expect(parseDigitalLinkPath(GTIN)).toEqual({ gtin: GTIN, serial: null });
    expect(parseDigitalLinkPath(`${GTIN}/`)).toEqual({ gtin: GTIN, serial: null });
    expect(parseDigitalLinkPath(`${GTIN}/21/S1/`)).toEqual({ gtin: GTIN, serial: 'S1' });
    expect(parseDigitalLinkPath(`${GTIN}/22/V1/10/LOT-1/21/S1`)).toEqual({ gtin: GTIN, serial: 'S1' });
    expect(parseDigitalLinkPath(`${GTIN}/10/LOT-1`)).toEqual({ gtin: GTIN, serial: null });
  });

  it('refuses bad syntax as parameter_invalid naming what is wrong', async () => {
    const cases: [string, string, RegExp][] = [
      ['0950600013435X/21/a', 'gtin', /digits only/],
      ['0950600013435/21/a', 'gtin', /13 digits|check digit/],
      ['09506000134353/21/a', 'gtin', /check digit/],
      ['123/21/a', 'gtin', /3 digits/],
      [`${GTIN}/21/${'x'.repeat(21)}`, 'serial', /20 characters/],
      [`${GTIN}/21/a%20b`, 'serial', /character set 82/],
      [`${GTIN}/21/a%23b`, 'serial', /character set 82/],
      [`${GTIN}/21/%E0%A4%A`, 'serial', /percent-encoding/],
      [`${GTIN}/99/x`, 'path', /not a key qualifier/],
      [`${GTIN}/17/250101`, 'path', /not a key qualifier/],
      [`${GTIN}/21/S1/10/LOT`, 'path', /order 22, 10, 21/],
      [`${GTIN}/21/S1/21/S2`, 'path', /order 22, 10, 21/],
      [`${GTIN}/21`, 'path', /pairs/],
      [`${GTIN}/10/a%20b/21/S`, 'lot', /character set 82/],
    ];
    for (const [p, param, message] of cases) {
      const e = await refusal(() => parseDigitalLinkPath(p));
      expect([p, e.code, e.param]).toEqual([p, 'parameter_invalid', param]);
      expect(e.message).toMatch(message);
    }
  });
});

describe('MintBatch items with a GTIN and serial (parseMintBatch)', () => {
  const parse = (items: object[]) =>
    parseMintBatch({ idempotencyKey: 'k', holderAddress: HOLDER, items: items as never });

  it('normalises the GTIN and keeps the serial out of the metadata and its hash', () => {
    const [plain] = parse([{ name: 'Lamp' }]).items;
    const [item] = parse([{ name: 'Lamp', gtin: '9506000134352', serial: 'S/1' }]).items;
    expect(item).toMatchObject({ gtin: GTIN, serial: 'S/1', metadataHash: plain!.metadataHash });
    expect(item!.metadata).toEqual({ name: 'Lamp' });
  });

  it('changes the request hash only when an item has a GTIN (earlier replays keep theirs)', () => {
    const a = parse([{ name: 'Lamp' }]).requestHash;
    expect(parse([{ name: 'Lamp' }]).requestHash).toBe(a);
    expect(parse([{ name: 'Lamp', gtin: GTIN, serial: 'S1' }]).requestHash).not.toBe(a);
    expect(parse([{ name: 'Lamp', gtin: GTIN, serial: 'S2' }]).requestHash).not.toBe(
      parse([{ name: 'Lamp', gtin: GTIN, serial: 'S1' }]).requestHash,
    );
  });

  it('wants both or neither, a valid GTIN and serial, and no (GTIN, serial) twice in a batch', async () => {
    const cases: [object[], string, RegExp][] = [
      [[{ name: 'L', gtin: GTIN }], 'items[0].serial', /both or neither/],
      [[{ name: 'L', serial: 'S1' }], 'items[0].gtin', /both or neither/],
      [[{ name: 'L', gtin: '09506000134353', serial: 'S1' }], 'items[0].gtin', /check digit/],
      [[{ name: 'L', gtin: GTIN, serial: 'S 1' }], 'items[0].serial', /character set 82/],
      [
        [
          { name: 'L', gtin: GTIN, serial: 'S1' },
          { name: 'M', gtin: '9506000134352', serial: 'S1' },
        ],
        'items[1].serial',
        /same GTIN and serial as items\[0\]/,
      ],
      [[{ name: 'L', metadata_json: '{"passportUrl":"http://x.test/p"}' }], 'items[0].metadata', /https/],
    ];
    for (const [items, param, message] of cases) {
      const e = await refusal(() => parse(items));
      expect(e).toMatchObject({ code: 'parameter_invalid', param });
      expect(e.message).toMatch(message);
    }
    expect(
      parse([{ name: 'L', metadata_json: '{"passportUrl":"https://dpp.test/p/1"}' }]).items,
    ).toHaveLength(1);
  });
});

describe('on PostgreSQL', () => {
  let database: string;
  let pool: Pool;
  let api: ReturnType<typeof createCertificatesHandlers>;
  let verification: ReturnType<typeof createVerificationHandlers>;

  beforeAll(async () => {
    database = uniqueDatabaseName('certificates_dl');
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database,
      migrationsDirs: [MIGRATIONS_DIR],
      max: 4,
    });
    // No chain is needed: batches are recorded (pending) and resolve as they are.
    const store = new CertificatesStore(pool, () => '0x' + '22'.repeat(20));
    api = createCertificatesHandlers({ store, provider: null });
    verification = createVerificationHandlers({
      store,
      verifier: {} as Verifier, // not called by ResolveDigitalLink
      digitalLink: new DigitalLinkService(new DigitalLinkStore(pool)),
    });
  }, 60_000);

  afterAll(async () => {
    await closeTestDatabase(pool, database);
  });

  const principal = (livemode = true, enterpriseId = newId('enterprise')): Principal => ({
    enterprise_id: enterpriseId,
    livemode,
    actor_id: newId('apiKey'),
    actor_type: 'api_key',
    scopes: [],
  });
  const mint = (p: Principal, key: string, items: MintItem[]) =>
    api.mintBatch({ principal: p, idempotency_key: key, holder_address: HOLDER, items }, CALL);
  const counts = async () => {
    const { rows } = await pool.query<{ certificates: string; batches: string; submissions: string }>(
      `SELECT (SELECT count(*) FROM certificates) AS certificates,
              (SELECT count(*) FROM certificate_batches) AS batches,
              (SELECT count(*) FROM chain_submissions) AS submissions`,
    );
    return rows[0];
  };
  const resolve = (p: string) => verification.resolveDigitalLink({ path: p }, CALL);

  it('stores the GTIN (14 digits) and serial and answers them with the Digital Link path', async () => {
    const res = await mint(principal(), 'dl-1', [
      { name: 'Bag', gtin: '9506000134352', serial: 'BAG/001' },
      { name: 'Plain' },
    ]);
    expect(res.certificates[0]).toMatchObject({
      gtin: GTIN,
      serial: 'BAG/001',
      digital_link_path: `/01/${GTIN}/21/BAG%2F001`,
    });
    expect(res.certificates[1]!.gtin).toBeUndefined();
    expect(res.certificates[1]!.digital_link_path).toBeUndefined();
    const read = await api.getPublicCertificate({ certificate_id: res.certificates[0]!.id }, CALL);
    expect(read).toMatchObject({ gtin: GTIN, serial: 'BAG/001' });
  });

  it("refuses a batch with a (GTIN, serial) another certificate of the mode holds — any enterprise's — and writes nothing of it", async () => {
    await mint(principal(), 'dl-2', [{ name: 'Watch', gtin: GTIN, serial: 'W-1' }]);
    const before = await counts();
    const e = await refusal(() =>
      mint(principal(), 'dl-3', [
        { name: 'Free', gtin: GTIN, serial: 'W-2' },
        { name: 'Taken', gtin: GTIN, serial: 'W-1' },
      ]),
    );
    expect(e).toMatchObject({ code: 'resource_already_exists', param: 'items[1].serial' });
    expect(e.message).toContain(`GTIN ${GTIN} and serial 'W-1'`);
    expect(await counts()).toEqual(before);
    // The free one was not kept either: it can be minted now.
    await mint(principal(), 'dl-4', [{ name: 'Free', gtin: GTIN, serial: 'W-2' }]);
  });

  it('refuses concurrent batches racing for one (GTIN, serial): one wins, the other is a 409 with nothing written', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) =>
        mint(principal(), `race-${i}`, [
          { name: `Race ${i}`, gtin: GTIN, serial: `R-${i}` },
          { name: 'Raced', gtin: GTIN, serial: 'RACE' },
        ]),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as HallmarkError).code).toBe('resource_already_exists');
    const { rows } = await pool.query(`SELECT serial FROM certificates WHERE serial LIKE 'R-%'`);
    expect(rows).toHaveLength(1);
  });

  it('lets test mode and live mode each hold a (GTIN, serial); resolution answers the live certificate', async () => {
    const ent = newId('enterprise');
    const test = await mint(principal(false, ent), 'dl-5', [{ name: 'T', gtin: GTIN, serial: 'M-1' }]);
    expect(await resolve(`${GTIN}/21/M-1`)).toMatchObject({
      certificate_id: test.certificates[0]!.id,
      livemode: false,
    });
    const live = await mint(principal(true, ent), 'dl-6', [{ name: 'L', gtin: GTIN, serial: 'M-1' }]);
    expect(await resolve(`${GTIN}/21/M-1`)).toMatchObject({
      certificate_id: live.certificates[0]!.id,
      livemode: true,
    });
  });

  it('resolves a path (short GTIN, encoded serial, lot) to its certificate with its canonical path and passport link', async () => {
    const res = await mint(principal(), 'dl-7', [
      {
        name: 'Chair',
        gtin: GTIN,
        serial: 'C/7?',
        metadata_json: JSON.stringify({ passportUrl: 'https://dpp.example/p/c7' }),
      },
    ]);
    expect(await resolve('9506000134352/10/LOT1/21/C%2F7%3F')).toEqual({
      certificate_id: res.certificates[0]!.id,
      livemode: true,
      gtin: GTIN,
      serial: 'C/7?',
      digital_link_path: `/01/${GTIN}/21/C%2F7%3F`,
      passport_url: 'https://dpp.example/p/c7',
    });
  });

  it('answers 404 for an unknown item and for a GTIN alone (no GTIN-level links), 400 for bad syntax', async () => {
    expect(await refusal(() => resolve(`${GTIN}/21/NOPE`))).toMatchObject({
      code: 'resource_not_found',
      message: expect.stringContaining(`No certificate has GTIN ${GTIN} and serial 'NOPE'`),
    });
    expect(await refusal(() => resolve(GTIN))).toMatchObject({
      code: 'resource_not_found',
      message: expect.stringContaining('certified items only'),
    });
    expect(await refusal(() => resolve('09506000134353/21/A'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'gtin',
    });
  });
});
