// Service records (docs/service-records.md) on a real PostgreSQL, the slices in-process, photos
// fetched from a local HTTPS server through the media slice's guarded fetcher: the brand or a
// repairer key (scope service_records.write) appends; the repairer key can do nothing else;
// the owner (a user session whose custodial wallet holds the certificate) accepts or refuses;
// only accepted records reach the public read; other tenants see nothing; every change leaves
// its event in the outbox in the same transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createGuardedAgent,
  createLogger,
  Encryptor,
  HallmarkError,
  newId,
  openDatabase,
  OutboundGuard,
  type Pool,
} from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { generate } from 'selfsigned';
import sharp from 'sharp';
import { fetchImageBytes } from '../src/media/fetch.js';
import { FsStorage } from '../src/media/fs-storage.js';
import { MediaService } from '../src/media/service.js';
import { MediaStore } from '../src/media/store.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { createServiceRecordHandlers } from '../src/service-records/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { WalletStore } from '../src/wallets/store.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const KEYS = Encryptor.generateKey();

let database: string;
let pool: Pool;
let tmp: string;
let https: Server;
let base: string;
let agent: ReturnType<typeof createGuardedAgent>;
let wallets: WalletStore;
let api: ReturnType<typeof createCertificatesHandlers>;
let records: ReturnType<typeof createServiceRecordHandlers>;
const served = new Map<string, Buffer>();

const enterprise = newId('enterprise');
/** The brand: a key with its scopes (a session holds admin.*). */
const brand: Principal = {
  enterprise_id: enterprise,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: ['transactions.*'],
};
/** A repairer's key of the same enterprise: service_records.write and nothing else. */
const repairer: Principal = { ...brand, actor_id: newId('apiKey'), scopes: ['service_records.write'] };
const userSession = (): Principal => ({
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('user'),
  actor_type: 'user',
  scopes: ['admin.*'],
});

beforeAll(async () => {
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 6,
  });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hallmark-service-records-'));
  const pems = await generate([{ name: 'commonName', value: 'service-records-test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  // The repairer's own server, where its photos and scans are.
  https = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
  agent = createGuardedAgent(new OutboundGuard('127.0.0.1'), { tls: { ca: pems.cert } });
  const media = new MediaService({
    store: new MediaStore(pool),
    storage: new FsStorage(path.join(tmp, 'media')),
    fetch: (url) => fetchImageBytes(url, { timeoutMs: 5000, maxBytes: 1024 * 1024, dispatcher: agent }),
    log,
  });
  const store = new CertificatesStore(pool, () => '0x' + '00'.repeat(20));
  wallets = new WalletStore(pool, KEYS);
  api = createCertificatesHandlers({ store, provider: null, wallets });
  records = createServiceRecordHandlers({ pool, certificates: store, wallets, media });
  served.set('/dial.png', await png('#336699'));
  served.set('/invoice.png', await png('#eeeeee'));
  served.set('/not-an-image', Buffer.from('<html>hello</html>'));
}, 60_000);

afterAll(async () => {
  await agent?.close();
  https?.closeAllConnections();
  await new Promise((resolve) => https?.close(resolve));
  await closeTestDatabase(pool, database);
  rmSync(tmp, { recursive: true, force: true });
});

const png = (color: string) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
    .png()
    .toBuffer();

/** A certificate of the brand held by `owner`'s custodial wallet (recorded for minting). */
async function ownedBy(owner: Principal, key: string): Promise<string> {
  const { wallet } = await wallets.ensureUser(owner.actor_id, enterprise);
  const res = await api.mintBatch(
    {
      principal: brand,
      idempotency_key: key,
      holder_address: wallet.address,
      items: [{ name: `${key} watch` }],
    },
    CALL,
  );
  return res.certificates[0]!.id;
}

const add = (principal: Principal, certificateId: string, over: Record<string, unknown> = {}) =>
  records.addServiceRecord(
    {
      principal,
      certificate_id: certificateId,
      kind: 'repair',
      performed_at: '2026-03-02',
      performer: 'Atelier Roux, Geneva',
      description: 'Mainspring replaced; water resistance tested to 10 bar.',
      attachments: [],
      ...over,
    },
    CALL,
  );
const decide = (principal: Principal, certificateId: string, recordId: string, decision: string) =>
  records.decideServiceRecord(
    { principal, certificate_id: certificateId, record_id: recordId, decision },
    CALL,
  );
const list = (principal: Principal, certificateId: string) =>
  records.listServiceRecords({ principal, certificate_id: certificateId }, CALL);
const publicRead = (certificateId: string) =>
  api.getPublicCertificate({ certificate_id: certificateId }, CALL);

async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

async function outbox(type: string, certificateId: string) {
  const { rows } = await pool.query<{ payload: { data: { object: Record<string, unknown> } } }>(
    `SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2 ORDER BY seq`,
    [type, certificateId],
  );
  return rows.map((r) => r.payload.data.object);
}

const count = async (certificateId: string) =>
  Number(
    (
      await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM certificate_service_records WHERE certificate_id = $1',
        [certificateId],
      )
    ).rows[0]!.n,
  );

describe('appending service records', () => {
  it('a repairer key appends a pending record with its photos archived by the media slice; certificate.service_record_added in the outbox; nothing public yet', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'add-1');
    const rec = await add(repairer, cert, {
      attachments: [
        { kind: 'photo', url: `${base}/dial.png`, caption: 'Dial after service' },
        { kind: 'document', url: `${base}/invoice.png` },
      ],
    });
    expect(rec).toMatchObject({
      certificate_id: cert,
      kind: 'repair',
      performer: 'Atelier Roux, Geneva',
      status: 'pending',
      added_by: { type: 'repairer', id: repairer.actor_id },
    });
    expect(rec.id).toMatch(/^svcrec_/);
    expect(rec.attachments).toHaveLength(2);
    expect(rec.attachments[0]).toMatchObject({
      kind: 'photo',
      content_type: 'image/png',
      width: 64,
      height: 48,
    });
    expect(rec.attachments[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const { rows } = await pool.query('SELECT 1 FROM media_objects WHERE sha256 = $1', [
      rec.attachments[0]!.sha256,
    ]);
    expect(rows).toHaveLength(1);
    const [event] = await outbox('certificate.service_record_added', cert);
    expect(event).toMatchObject({
      id: cert,
      serviceRecord: { id: rec.id, kind: 'repair', status: 'pending', addedBy: { type: 'repairer' } },
    });
    expect((await publicRead(cert)).service_history).toEqual([]);
  });

  it('the brand appends too (kind other with its label); the owner may not append', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'add-2');
    const rec = await add(brand, cert, { kind: 'other', label: 'Strap exchange' });
    expect(rec).toMatchObject({ kind: 'other', label: 'Strap exchange', added_by: { type: 'brand' } });
    expect(await refusal(add(owner, cert))).toMatchObject({ code: 'insufficient_permissions' });
  });

  it('refuses bad input and an attachment URL that is not an image before writing anything', async () => {
    const cert = await ownedBy(userSession(), 'add-bad');
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'polish' }, 'kind'],
      [{ kind: 'other' }, 'label'],
      [{ label: 'x' }, 'label'],
      [{ performed_at: 'yesterday' }, 'performed_at'],
      [{ performed_at: '2999-01-01' }, 'performed_at'],
      [{ performer: '' }, 'performer'],
      [{ description: 'a\u0000b' }, 'description'],
      [{ attachments: [{ kind: 'video', url: `${base}/dial.png` }] }, 'attachments[0].kind'],
      [{ attachments: [{ kind: 'photo', url: 'http://example.com/a.png' }] }, 'attachments[0].url'],
      [{ attachments: [{ kind: 'photo', url: `${base}/not-an-image` }] }, 'attachments[0].url'],
    ];
    for (const [over, param] of cases) {
      const err = await refusal(add(brand, cert, over));
      expect({ param: err.param, status: err.httpStatus }).toEqual({ param, status: expect.any(Number) });
      expect(err.httpStatus).toBeGreaterThanOrEqual(400);
      expect(err.httpStatus).toBeLessThan(500);
    }
    expect(await count(cert)).toBe(0);
    expect(await outbox('certificate.service_record_added', cert)).toEqual([]);
  });
});

describe('the repairer key appends and nothing else', () => {
  it('cannot list records, decide them, or use a key without the scope; a key with neither scope is refused', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'rep-1');
    const rec = await add(repairer, cert);
    expect(await refusal(list(repairer, cert))).toMatchObject({
      code: 'insufficient_permissions',
      extras: { required_permission: 'transactions.read' },
    });
    expect(await refusal(decide(repairer, cert, rec.id, 'accept'))).toMatchObject({
      code: 'insufficient_permissions',
    });
    // A key of the brand with some other scope (reports) may neither append nor read.
    const reporting: Principal = { ...brand, actor_id: newId('apiKey'), scopes: ['reports.read'] };
    expect(await refusal(add(reporting, cert))).toMatchObject({
      code: 'insufficient_permissions',
      extras: { required_permission: 'service_records.write' },
    });
    expect(await refusal(list(reporting, cert))).toMatchObject({ code: 'insufficient_permissions' });
    // Nor does the brand decide: only the owner does.
    expect(await refusal(decide(brand, cert, rec.id, 'accept'))).toMatchObject({
      code: 'insufficient_permissions',
    });
    expect((await list(owner, cert)).records[0]!.status).toBe('pending');
  });

  it('cannot act on another enterprise’s certificate (nor in the other mode): answered as an unknown certificate', async () => {
    const cert = await ownedBy(userSession(), 'rep-2');
    const otherRepairer: Principal = {
      ...repairer,
      enterprise_id: newId('enterprise'),
      actor_id: newId('apiKey'),
    };
    const testMode: Principal = { ...repairer, livemode: false };
    for (const p of [otherRepairer, testMode]) {
      expect(await refusal(add(p, cert))).toMatchObject({ code: 'resource_not_found' });
    }
    expect(await count(cert)).toBe(0);
  });
});

describe('the owner decides', () => {
  it('accepts: the record joins the public read’s service history (attachments, no internal ids); certificate.service_record_accepted; a decision is final', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'own-1');
    const later = await add(repairer, cert, { kind: 'refurbishment', performed_at: '2026-05-10T09:00:00Z' });
    const earlier = await add(repairer, cert, {
      kind: 'authentication_check',
      performed_at: '2026-01-15',
      attachments: [{ kind: 'photo', url: `${base}/dial.png` }],
    });
    const res = await decide(owner, cert, later.id, 'accept');
    expect(res.record).toMatchObject({ id: later.id, status: 'accepted' });
    expect(res.certificate!.service_history.map((e) => e.id)).toEqual([later.id]);
    await decide(owner, cert, earlier.id, 'accept');
    const pub = await publicRead(cert);
    // Oldest performed first, whatever the order of acceptance.
    expect(pub.service_history.map((e) => e.kind)).toEqual(['authentication_check', 'refurbishment']);
    expect(pub.service_history[0]).toMatchObject({
      performer: 'Atelier Roux, Geneva',
      attachments: [{ kind: 'photo', content_type: 'image/png' }],
    });
    expect(JSON.stringify(pub.service_history)).not.toContain(repairer.actor_id);
    const [event] = await outbox('certificate.service_record_accepted', cert);
    expect(event).toMatchObject({ id: cert, serviceRecord: { id: later.id, status: 'accepted' } });
    expect(await refusal(decide(owner, cert, later.id, 'refuse'))).toMatchObject({
      code: 'validation_failed',
      param: 'record_id',
    });
  });

  it('refuses: kept for the brand (listed with its status), never in the public read; certificate.service_record_refused', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'own-2');
    const rec = await add(brand, cert, { description: 'Case polished' });
    const res = await decide(owner, cert, rec.id, 'refuse');
    expect(res.record).toMatchObject({ status: 'refused' });
    expect(res.certificate!.service_history).toEqual([]);
    expect((await publicRead(cert)).service_history).toEqual([]);
    expect((await list(brand, cert)).records).toEqual([
      expect.objectContaining({ id: rec.id, status: 'refused' }),
    ]);
    const [event] = await outbox('certificate.service_record_refused', cert);
    expect(event).toMatchObject({ serviceRecord: { id: rec.id, status: 'refused' } });
    expect(await refusal(decide(owner, cert, rec.id, 'accept'))).toMatchObject({ code: 'validation_failed' });
    expect((await publicRead(cert)).service_history).toEqual([]);
  });

  it('someone who does not hold the certificate cannot read or decide (unknown certificate); an unknown record is 404; a bad decision 400', async () => {
    const owner = userSession();
    const cert = await ownedBy(owner, 'own-3');
    const rec = await add(brand, cert);
    const stranger = userSession();
    expect(await refusal(list(stranger, cert))).toMatchObject({ code: 'resource_not_found' });
    expect(await refusal(decide(stranger, cert, rec.id, 'accept'))).toMatchObject({
      code: 'resource_not_found',
    });
    expect(await refusal(decide(owner, cert, newId('serviceRecord'), 'accept'))).toMatchObject({
      code: 'resource_not_found',
    });
    expect(await refusal(decide(owner, cert, rec.id, 'maybe'))).toMatchObject({ code: 'parameter_invalid' });
    // A record of another certificate is not this one's.
    const other = await ownedBy(owner, 'own-3b');
    expect(await refusal(decide(owner, other, rec.id, 'accept'))).toMatchObject({
      code: 'resource_not_found',
    });
    expect((await list(owner, cert)).records[0]!.status).toBe('pending');
  });
});

describe('tenant isolation', () => {
  it('another enterprise’s brand key cannot list or append to the certificate; its own records are its own', async () => {
    const cert = await ownedBy(userSession(), 'iso-1');
    await add(brand, cert);
    const other: Principal = { ...brand, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
    expect(await refusal(list(other, cert))).toMatchObject({ code: 'resource_not_found' });
    expect(await refusal(add(other, cert))).toMatchObject({ code: 'resource_not_found' });
    expect(await refusal(list({ ...brand, livemode: false }, cert))).toMatchObject({
      code: 'resource_not_found',
    });
    expect((await list(brand, cert)).records).toHaveLength(1);
  });
});
