// The chain index on a real PostgreSQL and anvil (issue 31): verifications answer from the index
// the chain indexer keeps from the contract's logs (a verifier whose RPC endpoint is dead still
// verifies an indexed certificate), a burn the indexer has seen changes the next verification
// within a second, a record edited in the database fails its metadata check, the re-check flags a disagreement between the index and the chain (row,
// metric, log) and resolves it once they agree, and recorded verifications leave as one
// document.verified per certificate per window, with the count.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, newId, openDatabase, registry, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { JsonRpcProvider, Network } from 'ethers';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { chainIndexKey } from '../src/domain/chain-index.js';
import { ChainIndexer } from '../src/indexer/workers/chain-indexer.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { Verifier } from '../src/verify/service.js';
import { VerifiedEvents } from '../src/verify/verified-events.js';
import { IndexRecheck } from '../src/verify/workers/recheck.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('chain-index-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-chain-index-${process.pid}.log`);

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
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

const indexer = () =>
  new ChainIndexer({
    pool,
    provider: chain.provider,
    contractAddress: chain.contract.address,
    chainId: chain.chainId,
    confirmations: 1,
    blockRange: 50,
    startBlock: 0,
    maxRangesPerPass: 100,
    log,
  });

/** A verifier whose chain RPC endpoint answers nothing: it can only verify from the index. */
function offlineVerifier(events?: VerifiedEvents): Verifier {
  const dead = new JsonRpcProvider('http://127.0.0.1:9', Network.from(chain.chainId), {
    staticNetwork: true,
  });
  return new Verifier({
    pool,
    store,
    chain: () => ({ provider: dead, contract: chain.contract.connect(dead), chainId: chain.chainId }),
    chainTimeoutMs: 500,
    events,
  });
}

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

const failed = (v: Awaited<ReturnType<Verifier['verify']>>) =>
  v.checks.filter((k) => !k.passed).map((k) => k.name);

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return m
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_chain_index');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 6,
  });
  chain = await connectTestChain(anvil, pool, log);
  store = new CertificatesStore(pool, () => chain.contract.address);
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

describe('verifications from the chain index', () => {
  it('an indexed certificate verifies with no chain reachable; a burn the indexer sees changes the next read within 1 s', async () => {
    const [a, b] = await mintBatch(2);
    const offline = offlineVerifier();
    // Not indexed yet: the verifier would have to ask the (dead) chain, and says it could not.
    expect(failed(await offline.verify(a!.id, { recordEvent: false }))).toContain('holder');

    await indexer().runOnce();
    const genuine = await offline.verify(a!.id, { recordEvent: false });
    expect(failed(genuine)).toEqual([]);
    expect(genuine.chainOwner).toBe(holder().address);
    const { rows: root } = await pool.query<{ merkle_root: string }>(
      'SELECT b.merkle_root FROM certificates c JOIN certificate_batches b ON b.id = c.batch_id WHERE c.id = $1',
      [a!.id],
    );
    expect(genuine.merkleRoot).toBe(root[0]!.merkle_root);
    expect(genuine.checks.find((k) => k.name === 'on_chain')!.detail).toMatch(/a batch of 2 from #/);

    const burn = (await (await chain.contract.connect(holder()).burn(a!.tokenId)).wait())!;
    const key = chainIndexKey(chain.chainId, chain.contract.address);
    const started = performance.now();
    const worker = indexer();
    let after: Awaited<ReturnType<Verifier['verify']>> | undefined;
    while (performance.now() - started < 1000) {
      await worker.runOnce();
      after = await offline.verify(a!.id, { recordEvent: false });
      if (after.burned) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const elapsed = performance.now() - started;
    const { rows } = await pool.query<{ value: string }>('SELECT value FROM chain_state WHERE key = $1', [
      key,
    ]);
    expect(Number(rows[0]!.value)).toBeGreaterThanOrEqual(burn.blockNumber);
    expect(after!.burned).toBe(true);
    expect(elapsed).toBeLessThan(1000);
    expect(failed(after!)).toEqual(['holder', 'metadata', 'not_burned']);
    expect(after!.checks.find((k) => k.name === 'not_burned')!.detail).toContain(burn.hash.slice(0, 10));
    // Its sibling is untouched; edited behind the service's back, its metadata no longer proves.
    expect(failed(await offline.verify(b!.id, { recordEvent: false }))).toEqual([]);
    await pool.query(`UPDATE certificates SET metadata = metadata || '{"artist":"Forger"}' WHERE id = $1`, [
      b!.id,
    ]);
    const edited = await offline.verify(b!.id, { recordEvent: false });
    expect(failed(edited)).toEqual(['metadata']);
    expect(edited.checks.find((k) => k.name === 'metadata')!.detail).toContain('changed after minting');
  }, 60_000);

  it('the re-check flags an index that disagrees with the chain (row, metric) and resolves it once they agree', async () => {
    const [c] = await mintBatch(1);
    await indexer().runOnce();
    // The holder transfers the token; the index misses the log (its move is lost).
    const other = anvilWallet(6).address;
    await (
      await chain.contract.connect(holder()).contract.getFunction('transferFrom')(
        holder().address,
        other,
        c!.tokenId,
      )
    ).wait();
    await indexer().runOnce();
    await pool.query('DELETE FROM chain_tokens WHERE token_id = $1', [c!.tokenId]);

    const recheck = new IndexRecheck({ pool, chain, log, batchSize: 1000 });
    const before = await metric('hallmark_chain_index_disagreements_total', { fact: 'owner' });
    const pass = await recheck.runOnce();
    expect(pass.flagged).toBe(1);
    expect(pass.open).toBe(1);
    expect(await metric('hallmark_chain_index_disagreements_total', { fact: 'owner' })).toBe(before + 1);
    expect(await metric('hallmark_chain_index_disagreements')).toBe(1);
    const { rows } = await pool.query(
      'SELECT certificate_id, fact, indexed, chain FROM chain_index_disagreements WHERE resolved_at IS NULL',
    );
    expect(rows).toEqual([{ certificate_id: c!.id, fact: 'owner', indexed: holder().address, chain: other }]);
    // Flagged once, not per pass.
    expect((await recheck.runOnce()).flagged).toBe(0);

    // Re-indexed from scratch, the index agrees again and the disagreement is resolved.
    await pool.query('DELETE FROM chain_state WHERE key = $1', [
      chainIndexKey(chain.chainId, chain.contract.address),
    ]);
    await indexer().runOnce();
    const healed = await recheck.runOnce();
    expect(healed).toMatchObject({ resolved: 1, open: 0 });
    expect(await metric('hallmark_chain_index_disagreements')).toBe(0);
  }, 60_000);

  it('recorded verifications leave as one document.verified per certificate per window, with the count', async () => {
    const [d, e] = await mintBatch(2);
    await indexer().runOnce();
    const events = new VerifiedEvents({ pool, log, windowMs: 60_000 });
    const verifier = offlineVerifier(events);
    const count = async (id: string) =>
      (
        await pool.query<{ payload: { data: { object: Record<string, unknown> } } }>(
          `SELECT payload FROM outbox WHERE type = 'document.verified' AND payload->'data'->'object'->>'id' = $1`,
          [id],
        )
      ).rows.map((r) => r.payload.data.object);
    for (let i = 0; i < 5; i++) await verifier.verify(d!.id, { recordEvent: true });
    await verifier.verify(e!.id, { recordEvent: true });
    await verifier.verify(e!.id, { recordEvent: false });
    expect(await count(d!.id)).toEqual([]); // nothing written per view
    expect(await events.flush()).toBe(2);
    expect(await count(d!.id)).toEqual([
      expect.objectContaining({ views: 5, failed_views: 0, result: 'verified' }),
    ]);
    expect(await count(e!.id)).toEqual([expect.objectContaining({ views: 1, result: 'verified' })]);
    expect(await events.flush()).toBe(0);
  }, 60_000);
});
