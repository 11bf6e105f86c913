// Verifiable credentials on a real PostgreSQL and anvil: the backfill of certificates minted
// before credentials existed resumes where a stopped worker left it; two workers issue each
// certificate's credential exactly once; the worker waits while minting is busy; a burn sets the revocation bit in its own
// transaction and the served status list shows it; a rotation keeps old credentials
// verifiable; a verified domain's did:web; the proof bundle proves on chain. Every credential
// is verified with @digitalbazaar/vc (./credentials-verify.ts), an independent implementation.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeList } from '@digitalbazaar/vc-bitstring-status-list';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import {
  createLogger,
  Encryptor,
  HallmarkError,
  newId,
  openDatabase,
  transaction,
  type Pool,
} from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { verifyBatchProof } from '../src/chain/batch-tree.js';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { queueCredentials } from '../src/credentials/store.js';
import { credentialPass } from '../src/credentials/workers/issuer.js';
import { BurnStore } from '../src/indexer/store.js';
import { ChainIndexer } from '../src/indexer/workers/chain-indexer.js';
import { keepIssuer } from '../src/issuers/store.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { credentialService, drain, mintCertificates, verifyServed } from './credentials-fixture.js';
import { verifyIndependently } from './credentials-verify.js';

const PUBLIC_URL = 'http://127.0.0.1:8080';
const KEYS = Encryptor.generateKey();
const log = createLogger('credentials-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-credentials-${process.pid}.log`);
const MIGRATIONS = path.join(import.meta.dirname, '..', 'migrations');

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let otherPool: Pool;
let chain: Chain;
let store: CertificatesStore;
let api: ReturnType<typeof createCertificatesHandlers>;
let relayer: Relayer;
const holder = () => anvilWallet(5, chain.provider);

const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
const scope = { enterpriseId: principal.enterprise_id, livemode: true, actorId: principal.actor_id };

const relayerOf = (afterMinted?: typeof queueCredentials) =>
  new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
    ...(afterMinted ? { afterMinted } : {}),
  });

const serviceOn = (db: Pool, batchSize = 25) =>
  credentialService(db, chain, { publicUrl: PUBLIC_URL, keys: KEYS, batchSize, log });

/** Mints `n` certificates (as `who`) and answers their ids and token ids. */
const mint = (n: number, name = 'Ring', who: Principal = principal) =>
  mintCertificates({ api, relayer, principal: who, holder: holder().address }, n, name);

async function credentialRows(ids: string[]) {
  const { rows } = await pool.query<{ certificate_id: string; status_list_id: string; status_index: number }>(
    'SELECT certificate_id, status_list_id, status_index FROM certificate_credentials WHERE certificate_id = ANY($1)',
    [ids],
  );
  return rows;
}

let existing: { id: string; tokenId: number }[];

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_credentials');
  // The database as it was before credentials: every migration but theirs (3201; the code
  // that mints needs the others, e.g. 3211's GTIN columns; the migrator applies by name, so
  // 3201 then runs after later-numbered ones, as on a database upgraded release by release).
  const before = mkdtempSync(join(tmpdir(), 'hallmark-migrations-'));
  for (const f of readdirSync(MIGRATIONS).filter((f) => !f.startsWith('3201_')))
    cpSync(join(MIGRATIONS, f), join(before, f));
  pool = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database, migrationsDirs: [before], max: 6 });
  rmSync(before, { recursive: true, force: true });
  chain = await connectTestChain(anvil, pool, log);
  store = new CertificatesStore(pool, () => chain.contract.address);
  api = createCertificatesHandlers({ store, provider: chain.provider });
  relayer = relayerOf();
  existing = await mint(12, 'Older');
  // The release with credentials: its migration queues every certificate minted before.
  await pool.end();
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS],
    max: 6,
  });
  otherPool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS],
    max: 6,
  });
  store = new CertificatesStore(pool, () => chain.contract.address);
  api = createCertificatesHandlers({ store, provider: chain.provider });
  relayer = relayerOf(queueCredentials);
}, 120_000);

afterAll(async () => {
  chain?.provider.destroy();
  await otherPool?.end();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('issuing credentials', () => {
  it('backfills certificates minted before credentials, and a worker stopped mid-way leaves the rest to the next one', async () => {
    const { rows: queued } = await pool.query('SELECT certificate_id FROM credential_queue');
    expect(queued.map((r) => r.certificate_id).sort()).toEqual(existing.map((c) => c.id).sort());

    expect(await serviceOn(pool, 5).issuePass()).toBe(5); // then this worker stops
    expect(await credentialRows(existing.map((c) => c.id))).toHaveLength(5);
    expect(await drain(serviceOn(otherPool, 5))).toBe(7); // another one finishes

    const rows = await credentialRows(existing.map((c) => c.id));
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.status_index)).size).toBe(12);
    expect((await pool.query('SELECT 1 FROM credential_queue')).rowCount).toBe(0);
    const service = serviceOn(pool);
    const did = await service.hostedDocument(principal.enterprise_id, true);
    expect(did.id).toBe(`did:web:127.0.0.1%3A8080:issuers:${principal.enterprise_id}`);
    for (const c of existing) {
      const { stored, result } = await verifyServed(service, c.id, [did]);
      expect(result).toEqual({ verified: true, revoked: false });
      expect(stored.credential).toMatchObject({
        issuer: did.id,
        credentialSubject: {
          certificateId: c.id,
          tokenId: String(c.tokenId),
          chainId: String(chain.chainId),
          metadata: { material: 'gold', sizes: [52, 54], description: 'Hand-made' },
        },
        proof: { verificationMethod: `${did.id}#key-1`, cryptosuite: 'ecdsa-rdfc-2019' },
      });
    }
  }, 120_000);

  it('issues each certificate once when two workers run at the same time', async () => {
    const minted = await mint(40, 'Twin');
    const [a, b] = await Promise.all([drain(serviceOn(pool, 4)), drain(serviceOn(otherPool, 4))]);
    expect(a + b).toBe(40);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    const rows = await credentialRows(minted.map((c) => c.id));
    expect(rows).toHaveLength(40);
    const { rows: all } = await pool.query<{ n: number; distinct_slots: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (status_list_id, status_index))::int AS distinct_slots
       FROM certificate_credentials`,
    );
    expect(all[0]).toEqual({ n: 52, distinct_slots: 52 });
    const did = await serviceOn(pool).hostedDocument(principal.enterprise_id, true);
    const { result } = await verifyServed(serviceOn(pool), minted[39]!.id, [did]);
    expect(result).toEqual({ verified: true, revoked: false });
  }, 120_000);

  it('waits while minting is busy, issues one transaction an interval for an overdue one, and the rest once minting is quiet', async () => {
    await drain(serviceOn(pool));
    const minted = await mint(5, 'Busy'); // confirmed just now: minting is busy
    const mintsActive = () => store.mintsActive(60_000);
    expect(await mintsActive()).toBe(true);
    expect(await store.mintsActive(0)).toBe(false); // nothing open, nothing confirmed in the last 0 ms
    const service = serviceOn(pool, 2);
    expect(await credentialPass(service, { mintsActive, maxDeferMs: 60_000 })).toBe(0);
    expect(await credentialRows(minted.map((c) => c.id))).toHaveLength(0);
    // queued longer than the longest deferral: one transaction (2) an interval, not the whole queue
    const state = { overdueAt: 0 };
    const overdue = { mintsActive, maxDeferMs: 0, intervalMs: 60_000 };
    expect(await credentialPass(service, overdue, state)).toBe(2);
    expect(await credentialPass(service, overdue, state)).toBe(0); // woken again within the interval
    expect(await credentialPass(service, { mintsActive: async () => false })).toBe(3);
    expect(await credentialRows(minted.map((c) => c.id))).toHaveLength(5);
  }, 60_000);

  it('answers a clear resource_not_found for a certificate whose credential is not issued yet', async () => {
    const [fresh] = await mint(1, 'Fresh');
    const err = await serviceOn(pool)
      .credential(fresh!.id)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect((err as HallmarkError).code).toBe('resource_not_found');
    expect((err as HallmarkError).message).toMatch(/has no credential yet: it is being issued/);
    await drain(serviceOn(pool));
    await expect(serviceOn(pool).bundle(fresh!.id)).resolves.toMatchObject({ certificateId: fresh!.id });
  }, 60_000);
});

describe('revocation on burn', () => {
  it('sets the bit in the transaction that records the burn, and the served list shows it', async () => {
    const service = serviceOn(pool);
    const target = existing[0]!;
    const did = await service.hostedDocument(principal.enterprise_id, true);
    const before = await verifyServed(service, target.id, [did]);
    expect(before.result.revoked).toBe(false);
    const burned = await (await chain.contract.connect(holder()).burn(target.tokenId)).wait();
    const slot = (await credentialRows([target.id]))[0]!;
    const bitOf = async (db: { query: Pool['query'] }) => {
      const { rows } = await db.query<{ bit: number }>(
        `SELECT get_bit(bits, ($2::int / 8) * 8 + 7 - ($2::int % 8)) AS bit FROM status_lists WHERE id = $1`,
        [slot.status_list_id, slot.status_index],
      );
      return rows[0]!.bit;
    };
    await transaction(pool, async (tx) => {
      const recorded = await new BurnStore(pool, chain.contract.address).recordBurn(
        tx,
        {
          tokenId: BigInt(target.tokenId),
          from: holder().address,
          transactionHash: burned!.hash,
          blockNumber: burned!.blockNumber,
          logIndex: 0,
        },
        holder().address,
      );
      expect(recorded).toBe(true);
      expect(await bitOf(tx)).toBe(1); // inside the burn's transaction
      expect(await bitOf(pool)).toBe(0); // nobody else sees it before the burn commits
    });
    expect(await bitOf(pool)).toBe(1);
    const after = await verifyServed(service, target.id, [did]);
    expect(after.result).toEqual({ verified: true, revoked: true });
    const list = JSON.parse(await service.statusList(slot.status_list_id)) as {
      credentialSubject: { encodedList: string };
    };
    expect((await decodeList(list.credentialSubject)).getStatus(slot.status_index)).toBe(true);
  }, 60_000);

  it('revokes through the burn indexer, and a certificate burned before its credential is issued revoked', async () => {
    const service = serviceOn(pool);
    const [early] = await mint(1, 'Early');
    // Burned on chain and indexed while its credential is still queued.
    await (await chain.contract.connect(holder()).burn(existing[1]!.tokenId)).wait();
    await (await chain.contract.connect(holder()).burn(early!.tokenId)).wait();
    const indexer = new ChainIndexer({
      pool,
      provider: chain.provider,
      contractAddress: chain.contract.address,
      chainId: chain.chainId,
      confirmations: 1,
      blockRange: 1000,
      startBlock: 0,
      log,
    });
    expect((await indexer.runOnce()).burned).toBeGreaterThanOrEqual(2);
    await drain(service);
    const did = await service.hostedDocument(principal.enterprise_id, true);
    for (const id of [existing[1]!.id, early!.id])
      expect((await verifyServed(service, id, [did])).result).toEqual({ verified: true, revoked: true });
    expect((await verifyServed(service, existing[2]!.id, [did])).result.revoked).toBe(false);
  }, 60_000);
});

describe('issuer keys and DIDs', () => {
  it('a rotation signs new credentials and lists with the new key, and old credentials still verify', async () => {
    const service = serviceOn(pool);
    const identity = await service.rotate(scope);
    expect(identity.keys.map((k) => [k.keyId, k.current])).toEqual([
      ['key-2', true],
      ['key-1', false],
    ]);
    const [next] = await mint(1, 'After rotation');
    await drain(service);
    const did = await service.hostedDocument(principal.enterprise_id, true);
    expect(did.assertionMethod).toEqual([`${did.id}#key-2`, `${did.id}#key-1`]);
    const fresh = await verifyServed(service, next!.id, [did]);
    expect(fresh.result).toEqual({ verified: true, revoked: false });
    expect(fresh.stored.credential.proof).toMatchObject({ verificationMethod: `${did.id}#key-2` });
    const old = await verifyServed(service, existing[3]!.id, [did]);
    expect(old.result).toEqual({ verified: true, revoked: false });
    expect(old.stored.credential.proof).toMatchObject({ verificationMethod: `${did.id}#key-1` });
    const list = JSON.parse(await service.statusList(old.stored.statusListId)) as { proof: unknown };
    expect(list.proof).toMatchObject({ verificationMethod: `${did.id}#key-2` });
    // Hallmark's copy of the secret is encrypted at rest.
    const { rows } = await pool.query<{ secret_key_enc: string }>('SELECT secret_key_enc FROM issuer_keys');
    for (const r of rows) expect(r.secret_key_enc).toMatch(/^v1\./);
  }, 60_000);

  it("names the verified domain's did:web once the domain is verified, with the document the brand hosts", async () => {
    const service = serviceOn(pool);
    await keepIssuer(pool, {
      enterpriseId: principal.enterprise_id,
      displayName: 'Maison Example',
      website: 'https://maison.example/',
      domainVerified: true,
      logo: null,
      indexable: false,
      asOf: new Date(),
    });
    const identity = await service.identity(scope);
    expect(identity).toMatchObject({
      issuingDid: 'did:web:maison.example',
      domainVerified: true,
      domain: { did: 'did:web:maison.example', url: 'https://maison.example/.well-known/did.json' },
    });
    expect(identity.domain!.document.alsoKnownAs).toEqual([identity.hostedDid]);
    expect(identity.hostedDocument.alsoKnownAs).toEqual(['did:web:maison.example']);
    const [branded] = await mint(1, 'Branded');
    await drain(service);
    const { stored, result } = await verifyServed(service, branded!.id, [identity.domain!.document]);
    expect(result).toEqual({ verified: true, revoked: false });
    expect(stored.issuerDid).toBe('did:web:maison.example');
    const bundle = await service.bundle(branded!.id);
    expect(bundle.issuer).toMatchObject({
      did: 'did:web:maison.example',
      didDocument: identity.domain!.document,
    });
  }, 60_000);
});

describe('test mode', () => {
  it('issues test-mode credentials with keys and a hosted DID of their own, never the verified domain', async () => {
    const service = serviceOn(pool);
    const testMode = { ...principal, livemode: false };
    const [t] = await mint(1, 'Test mode', testMode);
    await drain(service);
    const did = await service.hostedDocument(principal.enterprise_id, false);
    expect(did.id).toBe(`did:web:127.0.0.1%3A8080:issuers:${principal.enterprise_id}:test`);
    const { stored, result } = await verifyServed(service, t!.id, [did]);
    expect(result).toEqual({ verified: true, revoked: false });
    expect(stored).toMatchObject({ issuerDid: did.id, livemode: false, keySeq: 1 });
    const live = await service.hostedDocument(principal.enterprise_id, true);
    expect(live.verificationMethod.map((v) => v.publicKeyMultibase)).not.toContain(
      did.verificationMethod[0]!.publicKeyMultibase,
    );
  }, 60_000);
});

describe('the proof bundle', () => {
  it('carries the credential and a Merkle proof the contract accepts against the batch root', async () => {
    const service = serviceOn(pool);
    const c = existing[4]!;
    const bundle = await service.bundle(c.id);
    const stored = await service.credential(c.id);
    expect(bundle).toMatchObject({
      format: 'hallmark-proof-bundle/1',
      certificateId: c.id,
      credential: stored.credential,
      chain: { chainId: String(chain.chainId), contract: chain.contract.address, tokenId: String(c.tokenId) },
      image: null,
      issuer: { did: stored.issuerDid },
    });
    expect(bundle.metadata.metadata).toEqual({
      name: 'Older #5',
      description: 'Hand-made',
      material: 'gold',
      sizes: [52, 54],
    });
    expect(
      verifyBatchProof(bundle.merkle.root, bundle.merkle.index, bundle.metadata.hash, bundle.merkle.proof),
    ).toBe(true);
    expect(
      await chain.contract.verifyCertificate(
        BigInt(c.tokenId),
        bundle.merkle.batchKey,
        bundle.metadata.hash,
        bundle.merkle.proof,
      ),
    ).toBe(true);
    const tx = await chain.provider.getTransactionReceipt(bundle.mint.transactionHash);
    expect(tx!.blockNumber).toBe(bundle.mint.blockNumber);
    const r = await verifyIndependently(bundle.credential, [bundle.issuer.didDocument]);
    expect(r.verified).toBe(true);
  }, 60_000);
});
