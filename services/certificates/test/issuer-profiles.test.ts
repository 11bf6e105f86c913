// The issuer line of the public reads, on a real PostgreSQL and NATS JetStream: the keys
// service's `enterprise_profile.updated`, as its outbox relay publishes it, reaches the next
// GetPublicCertificate with no call to keys (keys is not running here at all); a later change
// replaces it, an older announcement arriving late does not, a malformed one is never shown,
// and an enterprise without a profile gets no issuer.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  envelopeOf,
  newId,
  openDatabase,
  STREAM_NAME,
  type Bus,
  type EventData,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { issuerLookup } from '../src/issuers/rpc.js';
import { issuerProfileConsumer } from '../src/issuers/workers/profile-consumer.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';

const log = createLogger('issuer-profiles-test', 'silent');
// A subject space of this test's own on the shared NATS server, so no other consumer sees it.
const source = `issuertest${Date.now()}`;
const durable = `${source}-issuer-profiles`;
const CALL = { requestId: 'req_test', deadlineMs: Infinity };

let database: string;
let pool: Pool;
let bus: Bus;
let consumer: ReturnType<typeof issuerProfileConsumer>;
let certs: ReturnType<typeof createCertificatesHandlers>;

beforeAll(async () => {
  database = uniqueDatabaseName('certificates_issuers');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 4,
  });
  bus = await connectBus(TEST_NATS_URL, 'certificates-issuers-test');
  consumer = issuerProfileConsumer({
    bus,
    pool,
    log,
    durable,
    filter: `hallmark.${source}.enterprise_profile.updated`,
  });
  await consumer.start();
  const store = new CertificatesStore(pool, () => '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  certs = createCertificatesHandlers({ store, provider: null, issuerOf: issuerLookup(pool) });
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
  const jsm = await bus.js.jetstreamManager();
  await jsm.consumers.delete(STREAM_NAME, durable).catch(() => undefined);
  await bus?.close();
  await closeTestDatabase(pool, database);
});

type Profile = EventData<'enterprise_profile.updated'>['object'];

/** Publishes an announcement as the keys service's outbox relay does. */
async function announce(enterpriseId: string, over: Partial<Profile>): Promise<void> {
  const event = envelopeOf('keys', {
    type: 'enterprise_profile.updated',
    enterpriseId,
    data: {
      object: {
        enterprise_id: enterpriseId,
        display_name: 'Maison Test',
        website: 'https://maison.example/',
        domain_verified: true,
        logo_sha256: 'ab'.repeat(32),
        logo_width: 120,
        logo_height: 40,
        indexable: false,
        as_of: new Date().toISOString(),
        ...over,
      },
    },
  });
  await bus.js.publish(`hallmark.${source}.enterprise_profile.updated`, JSON.stringify(event), {
    msgID: event.id,
  });
}

/** Mints (pending: no chain here, only its address) one certificate of `enterpriseId`; answers its id. */
async function certificateOf(enterpriseId: string): Promise<string> {
  const batch = await certs.mintBatch(
    {
      principal: {
        enterprise_id: enterpriseId,
        livemode: true,
        actor_id: 'apikey_x',
        actor_type: 'api_key',
        scopes: [],
      },
      idempotency_key: newId('request'),
      holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
      items: [{ name: 'Lamp', metadata_json: '{}' }],
    },
    CALL,
  );
  return batch.certificates[0]!.id;
}

const publicRead = (id: string) => certs.getPublicCertificate({ certificate_id: id }, CALL);

describe('the issuer of the public read', () => {
  it('a profile announced by keys reaches the next public read, and its change the one after (no call to keys)', async () => {
    const ent = newId('enterprise');
    const id = await certificateOf(ent);
    expect((await publicRead(id)).issuer).toBeUndefined();
    await announce(ent, { as_of: '2026-01-01T00:00:00.000Z' });
    await eventually(async () => expect((await publicRead(id)).issuer).toBeDefined());
    expect((await publicRead(id)).issuer).toEqual({
      display_name: 'Maison Test',
      website: 'https://maison.example/',
      domain_verified: true,
      logo_sha256: 'ab'.repeat(32),
      logo_width: 120,
      logo_height: 40,
      indexable: false,
    });
    await announce(ent, {
      display_name: 'Maison Renamed',
      domain_verified: false,
      as_of: '2026-01-02T00:00:00.000Z',
    });
    await eventually(async () =>
      expect((await publicRead(id)).issuer).toMatchObject({
        display_name: 'Maison Renamed',
        domain_verified: false,
      }),
    );
  });

  it('an older announcement arriving late never replaces a newer one; a malformed one is never shown', async () => {
    const ent = newId('enterprise');
    const id = await certificateOf(ent);
    await announce(ent, { display_name: 'Newer', as_of: '2026-03-01T00:00:00.000Z' });
    await eventually(async () => expect((await publicRead(id)).issuer?.display_name).toBe('Newer'));
    await announce(ent, { display_name: 'Older', as_of: '2026-02-01T00:00:00.000Z' });
    await announce(ent, {
      display_name: 'Not https',
      website: 'http://x.example/',
      as_of: '2026-04-01T00:00:00.000Z',
    });
    // A last, valid announcement marks that the ones before it were handled (one consumer, in order).
    const other = newId('enterprise');
    const otherId = await certificateOf(other);
    await announce(other, { display_name: 'Marker' });
    await eventually(async () => expect((await publicRead(otherId)).issuer?.display_name).toBe('Marker'));
    expect((await publicRead(id)).issuer?.display_name).toBe('Newer');
  });
});
