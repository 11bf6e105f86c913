// ERC-4906 through the relayer on a real PostgreSQL and a real anvil: a warranty change queues a
// metadata update in its own transaction, and the announcer (the mint worker's pass) sends the
// queued updates as announceMetadataUpdate transactions, coalesced into ranges, each update
// announced once. An update of a certificate not minted yet waits for its token. A process killed
// after persisting a signed announcement (before or after its nonce went to another
// transaction) is replaced by one that sends it: announced, never lost.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, newId, openDatabase, scopeOf, transaction, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import {
  BATCH_METADATA_UPDATE_TOPIC,
  METADATA_UPDATE_TOPIC,
  certificatesInterface,
} from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { coalesce } from '../src/metadata-updates/domain.js';
import { queueMetadataUpdate } from '../src/metadata-updates/store.js';
import { MetadataAnnouncer } from '../src/metadata-updates/workers/announcer.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { WarrantyService } from '../src/warranty/service.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('metadata-updates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-metadata-updates-${process.pid}.log`);
const HOLDER = anvilWallet(5).address;

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let store: CertificatesStore;
let api: ReturnType<typeof createCertificatesHandlers>;
let warranties: WarrantyService;
const chainsToClose: Chain[] = [];

const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
const scope = scopeOf(principal);

async function connect(): Promise<Chain> {
  const c = await connectTestChain(anvil, pool, log);
  chainsToClose.push(c);
  return c;
}

/** The relayer and announcer a freshly started process would build. */
async function newProcess(): Promise<{ relayer: Relayer; announcer: MetadataAnnouncer }> {
  const c = await connect();
  const relayer = new Relayer({
    pool,
    provider: c.provider,
    signer: c.signer,
    contract: c.contract,
    chainId: c.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
    pollMs: 50,
  });
  return { relayer, announcer: new MetadataAnnouncer({ pool, relayer, confirmations: 1, log, pollMs: 50 }) };
}

async function recordBatch(key: string, n: number): Promise<string[]> {
  const res = await api.mintBatch(
    {
      principal,
      idempotency_key: key,
      holder_address: HOLDER,
      items: Array.from({ length: n }, (_, i) => ({ name: `${key} #${i + 1}` })),
    },
    CALL,
  );
  return res.certificates.map((c) => c.id);
}

async function tokenOf(certificateId: string): Promise<bigint> {
  const { rows } = await pool.query<{ token_id: string }>('SELECT token_id FROM certificates WHERE id = $1', [
    certificateId,
  ]);
  return BigInt(rows[0]!.token_id);
}

let coverage = 0;
const setWarranty = (certificateId: string) =>
  warranties.setWarranty(scope, certificateId, {
    period: '2',
    type: 'Manufacturer',
    startDate: '2026-01-01',
    coverage: `Parts and labour (${++coverage})`,
    claimProcess: 'Return to any boutique.',
    contactInfo: 'care@hallmark.test',
  });

/** Every ERC-4906 event of the contract on chain so far, as [from, to], in log order. */
async function announced(): Promise<[bigint, bigint][]> {
  const logs = await chain.provider.getLogs({
    address: chain.contract.address,
    topics: [[METADATA_UPDATE_TOPIC, BATCH_METADATA_UPDATE_TOPIC]],
    fromBlock: 0,
    toBlock: 'latest',
  });
  return logs.map((l) => {
    const p = certificatesInterface.parseLog({ topics: [...l.topics], data: l.data })!;
    return p.name === 'MetadataUpdate' ? [p.args[0], p.args[0]] : [p.args[0], p.args[1]];
  });
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 6,
  });
  chain = await connect();
  store = new CertificatesStore(pool, () => chain.contract.address);
  api = createCertificatesHandlers({ store, provider: chain.provider });
  warranties = new WarrantyService(store);
}, 60_000);

afterAll(async () => {
  for (const c of chainsToClose) c.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('coalescing', () => {
  it('merges overlapping and adjacent ranges, never widens them', () => {
    const r = (from: number, to: number) => ({ from: BigInt(from), to: BigInt(to) });
    expect(coalesce([r(9, 9), r(4, 6), r(3, 3), r(5, 5), r(12, 20), r(15, 16)])).toEqual([
      r(3, 6),
      r(9, 9),
      r(12, 20),
    ]);
  });
});

describe('announcer', () => {
  it('warranty changes of minted certificates are announced once, coalesced into ranges', async () => {
    const { relayer, announcer } = await newProcess();
    const ids = await recordBatch('b-minted', 6);
    await relayer.processOpen();
    const first = await tokenOf(ids[0]!);
    const before = (await announced()).length;
    // 0, 1, 2 (2 twice), 4; and a range queued directly by token ids, overlapping 4
    for (const i of [0, 1, 2, 2, 4]) await setWarranty(ids[i]!);
    await transaction(pool, (tx) =>
      queueMetadataUpdate(tx, { fromTokenId: first + 4n, toTokenId: first + 5n }, 'metadata_changed'),
    );
    expect(await announcer.store.backlog()).toBe(6);
    expect(await announcer.processOpen()).toBe(1);
    expect((await announced()).slice(before)).toEqual([
      [first, first + 2n],
      [first + 4n, first + 5n],
    ]);
    expect(await announcer.store.backlog()).toBe(0);
    // a second pass has nothing to announce
    expect(await announcer.processOpen()).toBe(0);
    expect((await announced()).length).toBe(before + 2);
  }, 60_000);

  it('a certificate changed before its token exists is announced once it is minted', async () => {
    const { relayer, announcer } = await newProcess();
    const [id] = await recordBatch('b-pending', 1);
    await setWarranty(id!);
    const before = (await announced()).length;
    expect(await announcer.processOpen()).toBe(0); // no token yet: it waits, queued
    expect(await announcer.store.backlog()).toBe(1);
    await relayer.processOpen();
    expect(await announcer.processOpen()).toBe(1);
    const token = await tokenOf(id!);
    expect((await announced()).slice(before)).toEqual([[token, token]]);
  }, 60_000);

  it('an announcement persisted but never broadcast (killed) is sent by the next process with the same bytes', async () => {
    const [id] = await recordBatch('b-crash', 1);
    await (await newProcess()).relayer.processOpen();
    await setWarranty(id!);
    const before = (await announced()).length;
    const dying = (await newProcess()).announcer;
    const a = (await dying.store.claim(chain.contract.address))!;
    const hash = await dying.send(a, { broadcast: false }); // persisted `signed`, then the kill
    expect((await dying.store.byId(a.id))!.status).toBe('signed');

    const { announcer } = await newProcess();
    expect(await announcer.processOpen()).toBe(1);
    const done = (await announcer.store.byId(a.id))!;
    expect(done).toMatchObject({ status: 'confirmed', txHash: hash });
    const token = await tokenOf(id!);
    expect((await announced()).slice(before)).toEqual([[token, token]]);
  }, 60_000);

  it('when a killed process’s announcement lost its nonce to another transaction, the next one signs it anew: announced, not lost', async () => {
    const [id] = await recordBatch('b-nonce', 1);
    const { relayer } = await newProcess();
    await relayer.processOpen();
    await setWarranty(id!);
    const before = (await announced()).length;
    const dying = (await newProcess()).announcer;
    const a = (await dying.store.claim(chain.contract.address))!;
    const lost = await dying.send(a, { broadcast: false });
    // the next process's first transaction (a mint) takes that nonce
    await recordBatch('b-nonce-next', 2);
    const next = await newProcess();
    await next.relayer.processOpen();

    expect(await next.announcer.processOpen()).toBe(1);
    const done = (await next.announcer.store.byId(a.id))!;
    expect(done.status).toBe('confirmed');
    expect(done.txHash).not.toBe(lost);
    expect(done.replacedHashes).toContain(lost);
    const token = await tokenOf(id!);
    expect((await announced()).slice(before)).toEqual([[token, token]]);
  }, 60_000);
});
