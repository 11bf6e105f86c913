// The burn indexer on a real PostgreSQL and anvil: a minted token burned by its holder with
// the contract binding is marked burned within seconds (one provenance entry, one
// certificate.burned event); a restarted indexer re-scanning from the start records nothing
// twice; burns are indexed only at confirmation depth.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, newId, openDatabase, type Pool } from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { ChainIndexer } from '../src/indexer/workers/chain-indexer.js';
import { IntervalWorker } from '@hallmark/kit';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('indexer-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-indexer-${process.pid}.log`);

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
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

const indexer = (confirmations = 1) =>
  new ChainIndexer({
    pool,
    provider: chain.provider,
    contractAddress: chain.contract.address,
    chainId: chain.chainId,
    confirmations,
    blockRange: 3,
    startBlock: 0,
    maxRangesPerPass: 100,
    log,
  });

/** Mints `n` certificates and returns their ids and token ids. */
async function mintBatch(n: number): Promise<{ id: string; tokenId: number }[]> {
  const res = await api.mintBatch(
    {
      principal,
      idempotency_key: newId('request'),
      holder_address: holder().address,
      items: Array.from({ length: n }, (_, i) => ({ name: `Ring #${i + 1}` })),
    },
    CALL,
  );
  expect(await relayer.processOpen()).toBe(1);
  return Promise.all(
    res.certificates.map(async (c) => {
      const read = await api.getCertificate({ principal, certificate_id: c.id }, CALL);
      return { id: c.id, tokenId: read.token_id! };
    }),
  );
}

async function burnedState(id: string) {
  const cert = await api.getCertificate({ principal, certificate_id: id }, CALL);
  const { rows: events } = await pool.query<{ payload: { data: { object: { id: string } } } }>(
    `SELECT payload FROM outbox WHERE type = 'certificate.burned' AND payload->'data'->'object'->>'id' = $1`,
    [id],
  );
  return { status: cert.status, burns: cert.provenance.filter((p) => p.kind === 'burned'), events };
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_indexer');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 6,
  });
  chain = await connectTestChain(anvil, pool, log);
  const store = new CertificatesStore(pool, () => chain.contract.address);
  api = createCertificatesHandlers({ store, provider: chain.provider });
  relayer = new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
  });
}, 60_000);

afterAll(async () => {
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('burn indexer', () => {
  it('marks a burned token burned once (provenance, event) and a restarted indexer re-scanning adds nothing', async () => {
    const [a, b] = await mintBatch(2);
    const burn = await (await chain.contract.connect(holder()).burn(a!.tokenId)).wait();

    const worker = new IntervalWorker({ name: 'burn indexer', intervalMs: 100, log }, () =>
      indexer().runOnce(),
    );
    await worker.start();
    try {
      const state = await eventually(
        async () => {
          const s = await burnedState(a!.id);
          expect(s.status).toBe('burned');
          return s;
        },
        { timeoutMs: 5000, intervalMs: 100 },
      );
      expect(state.burns).toEqual([
        expect.objectContaining({
          actor: holder().address,
          from: holder().address,
          to: '0x0000000000000000000000000000000000000000',
          transaction_hash: burn!.hash,
          block_number: burn!.blockNumber,
        }),
      ]);
      expect(state.events).toHaveLength(1);
      expect(state.events[0]!.payload.data).toMatchObject({
        object: { id: a!.id, tokenId: a!.tokenId, status: 'burned' },
        burn: { transactionHash: burn!.hash, blockNumber: burn!.blockNumber, actor: holder().address },
      });
    } finally {
      await worker.stop();
    }

    // A restarted indexer that lost its checkpoint scans everything again: nothing changes.
    const restarted = indexer();
    await pool.query('DELETE FROM chain_state WHERE key = $1', [restarted.checkpointKey]);
    const pass = await restarted.runOnce();
    expect(pass.burned).toBe(0);
    expect(pass.checkpoint).toBe(await chain.provider.getBlockNumber());
    const after = await burnedState(a!.id);
    expect(after.burns).toHaveLength(1);
    expect(after.events).toHaveLength(1);
    expect((await burnedState(b!.id)).status).toBe('minted');
  });

  it('indexes a burn only at confirmation depth', async () => {
    const [c] = await mintBatch(1);
    const deep = indexer(2);
    await deep.runOnce();
    await (await chain.contract.connect(holder()).burn(c!.tokenId)).wait();
    expect((await deep.runOnce()).burned).toBe(0);
    expect((await burnedState(c!.id)).status).toBe('minted');
    await chain.provider.send('evm_mine', []);
    expect((await deep.runOnce()).burned).toBe(1);
    expect(await burnedState(c!.id)).toMatchObject({ status: 'burned', events: [expect.anything()] });
  });
});
