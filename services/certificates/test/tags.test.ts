// Tap to verify through TagService's handlers on a real PostgreSQL (no chain: a recorded
// certificate is enough), with tags emulated in software from AN12196's rules: the brand's
// programming station decrypts the keys Hallmark exported to it, "programs" an emulated tag
// with them, and the tag produces a fresh SUN message per tap as a real one does.
import path from 'node:path';
import { constants, generateKeyPairSync, privateDecrypt, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { tagsSlice } from '../src/tags/index.js';
import { createTagHandlers } from '../src/tags/rpc.js';
import { emulateSun, hexUpper } from '../src/tags/domain/sun.js';
import { verificationOf } from '../src/verify/rpc.js';
import { Verifier } from '../src/verify/service.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('tags-test', 'silent');
const KEYS = randomBytes(32).toString('hex');

/** The brand's programming station: an RSA key pair; it alone can read the exported keys. */
const station = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stationPem = station.publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** An NTAG 424 DNA in software: its UID, its keys as programmed, and its read counter. */
class EmulatedTag {
  counter = 0;
  constructor(
    readonly uid: Buffer,
    readonly keys: Buffer[],
  ) {}
  /** One tap: the counter goes up, then the tag mirrors PICCData and the MAC into its URL. */
  async tap() {
    this.counter += 1;
    return this.message(this.counter);
  }
  message(counter: number) {
    return emulateSun({ metaReadKey: this.keys[1]!, fileReadKey: this.keys[2]!, uid: this.uid, counter });
  }
}

describe('tap to verify (TagService)', () => {
  let pool: Pool;
  let database: string;
  let certs: ReturnType<typeof createCertificatesHandlers>;
  let api: ReturnType<typeof createTagHandlers>;
  const enterprise = newId('enterprise');
  const principal = (enterpriseId = enterprise, livemode = true): Principal => ({
    enterprise_id: enterpriseId,
    livemode,
    actor_id: 'user_brand',
    actor_type: 'user',
    scopes: [],
  });

  beforeAll(async () => {
    database = uniqueDatabaseName('certificates_tags');
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database,
      migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
      max: 4,
    });
    const store = new CertificatesStore(pool, () => '0x5FbDB2315678afecb367f032d93F642f64180aa3');
    certs = createCertificatesHandlers({ store, provider: null });
    const verifyDeps = { store, verifier: new Verifier({ pool, store, chain: () => null }) };
    api = createTagHandlers(
      tagsSlice({
        pool,
        log,
        encryptionKeys: KEYS,
        publicUrl: 'https://hallmark.test',
        verify: (id) => verificationOf(verifyDeps, id, false),
      }).service,
    );
  });

  afterAll(async () => {
    await closeTestDatabase(pool, database);
  });

  async function certificate(p = principal()): Promise<string> {
    const res = await certs.mintBatch(
      {
        principal: p,
        idempotency_key: newId('request'),
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: [{ name: 'Handbag', metadata_json: '{"brand":"Maison"}' }],
      },
      CALL,
    );
    return res.certificates[0]!.id;
  }

  /** Registers a fresh UID and programs an emulated tag with the keys the station decrypts. */
  async function registeredTag(certificateId: string, p = principal()) {
    const uid = Buffer.concat([Buffer.from([0x04]), randomBytes(6)]);
    const res = await api.registerTag(
      { principal: p, certificate_id: certificateId, uid: hexUpper(uid), programming_public_key: stationPem },
      CALL,
    );
    const raw = privateDecrypt(
      { key: station.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(res.encrypted_keys, 'base64'),
    );
    expect(raw).toHaveLength(80);
    const keys = [0, 1, 2, 3, 4].map((i) => raw.subarray(16 * i, 16 * (i + 1)));
    return { res, tag: new EmulatedTag(uid, keys), keyId: res.key_id };
  }

  const tapWith = (keyId: string, m: { piccData: string; cmac: string }) =>
    api.tap({ key_id: keyId, picc_data: m.piccData, cmac: m.cmac }, CALL);

  async function errorOf(p: Promise<unknown>): Promise<HallmarkError> {
    try {
      await p;
    } catch (err) {
      if (err instanceof HallmarkError) return err;
      throw err;
    }
    throw new Error('expected a HallmarkError');
  }

  it('registers a tag: the URL template to program and keys readable only by the station', async () => {
    const id = await certificate();
    const { res, tag } = await registeredTag(id);
    expect(res.url_template).toBe(`https://hallmark.test/t/${res.key_id}?picc_data={PICC}&cmac={MAC}`);
    expect(res.tag).toMatchObject({
      certificate_id: id,
      uid: hexUpper(tag.uid),
      status: 'active',
      tap_count: 0,
    });
    // The master key is at rest only encrypted.
    const { rows } = await pool.query<{ master_key_enc: string }>('SELECT master_key_enc FROM nfc_tag_keys');
    for (const r of rows) expect(r.master_key_enc).toMatch(/^v1\./);
  });

  it('a fresh tap verifies, with its number and the certificate’s verification', async () => {
    const id = await certificate();
    const { tag, keyId } = await registeredTag(id);
    const first = await tapWith(keyId, await tag.tap());
    expect(first).toMatchObject({ outcome: 'genuine', certificate_id: id, tap_number: 1, counter: 1 });
    expect(first.verification?.certificate?.id).toBe(id);
    const second = await tapWith(keyId, await tag.tap());
    expect(second).toMatchObject({ outcome: 'genuine', tap_number: 2, counter: 2, last_counter: 1 });
  });

  it('the same message twice is refused as a replay, and a clone event is written once', async () => {
    const id = await certificate();
    const { tag, keyId, res } = await registeredTag(id);
    const m = await tag.tap();
    expect((await tapWith(keyId, m)).outcome).toBe('genuine');
    const again = await tapWith(keyId, m);
    expect(again).toMatchObject({ outcome: 'replayed', tag_id: res.tag!.id, counter: 1, last_counter: 1 });
    expect(again.verification).toBeUndefined();
    await tapWith(keyId, m);
    const { rows } = await pool.query<{
      payload: { data: { object: Record<string, unknown> }; enterprise_id: string };
    }>(
      `SELECT payload FROM outbox WHERE type = 'certificate.tag_clone_suspected'
        AND payload->'data'->'object'->>'tag_id' = $1`,
      [res.tag!.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payload.enterprise_id).toBe(enterprise);
    expect(rows[0]!.payload.data.object).toMatchObject({
      certificate_id: id,
      counter_seen: 1,
      last_counter: 1,
      tap_count: 1,
    });
  });

  it('a lower counter than the last accepted fails (a message read off the tag earlier)', async () => {
    const { tag, keyId } = await registeredTag(await certificate());
    const early = await tag.tap();
    const late = await tag.tap();
    expect((await tapWith(keyId, late)).outcome).toBe('genuine');
    expect(await tapWith(keyId, early)).toMatchObject({ outcome: 'replayed', counter: 1, last_counter: 2 });
  });

  it('of two concurrent taps with the same message exactly one is genuine', async () => {
    const { tag, keyId } = await registeredTag(await certificate());
    const m = await tag.tap();
    const outcomes = (await Promise.all([tapWith(keyId, m), tapWith(keyId, m)])).map((r) => r.outcome).sort();
    expect(outcomes).toEqual(['genuine', 'replayed']);
  });

  it('a message made with another tag’s key fails its signature', async () => {
    const id = await certificate();
    const a = await registeredTag(id);
    const b = await registeredTag(id);
    // Tag A's UID and counter, MACed with tag B's file read key (a cloner who owns tag B).
    const forged = await emulateSun({
      metaReadKey: a.tag.keys[1]!,
      fileReadKey: b.tag.keys[2]!,
      uid: a.tag.uid,
      counter: 5,
    });
    expect(await tapWith(a.keyId, forged)).toMatchObject({ outcome: 'bad_signature', counter: 5 });
    // The counter was not taken: the real tag's next message still verifies.
    expect((await tapWith(a.keyId, await a.tag.tap())).outcome).toBe('genuine');
  });

  it('a revoked tag fails plainly, even with a fresh message', async () => {
    const id = await certificate();
    const { tag, keyId, res } = await registeredTag(id);
    const revoked = await api.revokeTag(
      { principal: principal(), certificate_id: id, tag_id: res.tag!.id },
      CALL,
    );
    expect(revoked.status).toBe('revoked');
    expect((await tapWith(keyId, await tag.tap())).outcome).toBe('revoked');
  });

  it('unknown tags and malformed messages are outcomes, not errors', async () => {
    const { keyId } = await registeredTag(await certificate());
    const stranger = new EmulatedTag(
      randomBytes(7),
      [0, 1, 2, 3, 4].map(() => randomBytes(16)),
    );
    expect((await tapWith(keyId, await stranger.tap())).outcome).toBe('unknown_tag');
    expect(
      (await tapWith(newId('nfcTagKey'), { piccData: '00'.repeat(16), cmac: '00'.repeat(8) })).outcome,
    ).toBe('unknown_tag');
    expect((await tapWith(keyId, { piccData: 'zz', cmac: '00' })).outcome).toBe('malformed');
  });

  it('keeps tenants apart: another enterprise or mode cannot register on, list or revoke a certificate’s tags', async () => {
    const id = await certificate();
    const { res } = await registeredTag(id);
    const other = principal(newId('enterprise'));
    const testMode = principal(enterprise, false);
    for (const p of [other, testMode]) {
      expect((await errorOf(api.listTags({ principal: p, certificate_id: id }, CALL))).code).toBe(
        'resource_not_found',
      );
      expect(
        (await errorOf(api.revokeTag({ principal: p, certificate_id: id, tag_id: res.tag!.id }, CALL))).code,
      ).toBe('resource_not_found');
      expect(
        (
          await errorOf(
            api.registerTag(
              { principal: p, certificate_id: id, uid: '04AABBCCDDEEFF', programming_public_key: stationPem },
              CALL,
            ),
          )
        ).code,
      ).toBe('resource_not_found');
    }
    const mine = await api.listTags({ principal: principal(), certificate_id: id }, CALL);
    expect(mine.tags.map((t) => t.id)).toEqual([res.tag!.id]);
  });

  it('refuses a UID already active, a malformed UID and a weak or missing station key', async () => {
    const id = await certificate();
    const { tag } = await registeredTag(id);
    const register = (uid: string, key = stationPem) =>
      errorOf(
        api.registerTag(
          { principal: principal(), certificate_id: id, uid, programming_public_key: key },
          CALL,
        ),
      );
    expect((await register(hexUpper(tag.uid))).code).toBe('resource_already_exists');
    expect(await register('04AABB')).toMatchObject({ code: 'parameter_invalid', param: 'uid' });
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    expect(await register('04AABBCCDDEE01', weak.toString())).toMatchObject({
      code: 'parameter_invalid',
      param: 'programming_public_key',
    });
    expect(await register('04AABBCCDDEE02', '')).toMatchObject({ code: 'parameter_missing' });
  });
});
