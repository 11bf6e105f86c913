// Fee bump of stuck transactions on a real PostgreSQL and a real anvil, handlers in-process:
// with anvil's automine paused a mint's (or a transfer's) transaction sits in the mempool; the
// relayer signs it again with the same nonce and higher fees, persisted before the broadcast,
// and whichever of the hashes is mined is recorded, exactly once. A replacement that loses
// (the original is mined first) and one persisted but never broadcast (a crash) are recorded
// as the hash the chain actually mined. Mints, transfers and allowlist writes take the same
// path (src/chain/tx-sender.ts).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, Encryptor, newId, openDatabase, scopeOf, type Pool } from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { FeeData, Wallet } from 'ethers';
import { AllowlistProcessor } from '../src/allowlist/workers/processor.js';
import { AllowlistStore } from '../src/allowlist/store.js';
import { BATCH_MINTED_TOPIC, changesOfToken, parseOwnershipChanges } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer, type Submission } from '../src/chain/relayer.js';
import { bumpedFees, feesOf, type FeePolicy } from '../src/chain/replacement.js';
import { connectChain, type Chain } from '../src/chain/setup.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { WalletStore } from '../src/wallets/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('fee-bump-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-fee-bump-${process.pid}.log`);
const HOLDER = anvilWallet(5).address;
const FAST: FeePolicy = { replaceAfterMs: 1000, maxFeePerGas: null };
const gwei = (n: number) => BigInt(n) * 10n ** 9n;

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let store: CertificatesStore;
let wallets: WalletStore;
let api: ReturnType<typeof createCertificatesHandlers>;
const chainsToClose: Chain[] = [];

const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

async function connect(): Promise<Chain> {
  const c = await connectChain(
    {
      rpcUrl: anvil.rpcUrl,
      relayerKey: anvilWallet(0).privateKey,
      chainId: anvil.chainId,
      baseURI: 'https://h.test/m/',
    },
    pool,
    log,
  );
  chainsToClose.push(c);
  return c;
}

/** A relayer as a freshly started process would build it. */
async function newRelayer(feePolicy: FeePolicy = FAST): Promise<Relayer> {
  const c = await connect();
  return new Relayer({
    pool,
    provider: c.provider,
    signer: c.signer,
    contract: c.contract,
    chainId: c.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
    feePolicy,
    pollMs: 50,
  });
}

async function newTransfers(feePolicy: FeePolicy = FAST): Promise<TransferService> {
  // transfers take the relayer's transaction path, so its fee policy
  const relayer = await newRelayer(feePolicy);
  const c = chainsToClose.at(-1)!;
  return new TransferService({
    pool,
    store,
    wallets,
    chain: () => ({ relayer, provider: c.provider, signer: c.signer, chainId: c.chainId, confirmations: 1 }),
    log,
    waitMs: 0, // the test drives the sending side itself
    receiptTimeoutMs: 20_000,
    pollMs: 50,
  });
}

const automine = (on: boolean) => chain.provider.send('evm_setAutomine', [on]);
const mine = () => chain.provider.send('evm_mine', []);
const mempoolHas = async (hash: string) => (await chain.provider.getTransaction(hash)) !== null;
const mined = async (hash: string) => (await chain.provider.getTransactionReceipt(hash)) !== null;

async function mintBatch(key: string, n: number) {
  return api.mintBatch(
    {
      principal,
      idempotency_key: key,
      holder_address: HOLDER,
      items: Array.from({ length: n }, (_, i) => ({ name: `${key} #${i + 1}` })),
    },
    CALL,
  );
}

/** Everything recorded about a batch: its certificates, minted provenance, events, on-chain logs. */
async function batchFacts(batchId: string, sub: Submission) {
  const { rows: certs } = await pool.query<{ status: string; transaction_hash: string }>(
    'SELECT status, transaction_hash FROM certificates WHERE batch_id = $1',
    [batchId],
  );
  const { rows: prov } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM provenance p JOIN certificates c ON c.id = p.certificate_id
     WHERE c.batch_id = $1 AND p.kind = 'minted'`,
    [batchId],
  );
  // Certificates announced minted: one certificate.minted each, or each of a batch_minted.
  const { rows: events } = await pool.query<{ n: number }>(
    `SELECT coalesce(sum(CASE WHEN type = 'certificate.minted' THEN 1
                          ELSE jsonb_array_length(payload->'data'->'object'->'certificates') END), 0)::int AS n
     FROM outbox WHERE type IN ('certificate.minted', 'certificate.batch_minted')
       AND payload->'data'->'object'->>'batchId' = $1`,
    [batchId],
  );
  const logs = await chain.provider.getLogs({
    address: chain.contract.address,
    topics: [BATCH_MINTED_TOPIC, sub.batchKey],
    fromBlock: 0,
    toBlock: 'latest',
  });
  return { certs, minted: prov[0]!.n, events: events[0]!.n, logs };
}

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_feebump');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 6,
  });
  chain = await connect();
  store = new CertificatesStore(pool, () => chain.contract.address);
  wallets = new WalletStore(pool, Encryptor.generateKey());
  api = createCertificatesHandlers({ store, provider: chain.provider, wallets });
}, 60_000);

afterEach(async () => {
  await automine(true);
});

afterAll(async () => {
  for (const c of chainsToClose) c.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('fee policy', () => {
  const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) => ({
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  const node = (maxFee: bigint, tip: bigint) => new FeeData(null, maxFee, tip);
  const uncapped: FeePolicy = { replaceAfterMs: 1, maxFeePerGas: null };

  it('a replacement offers +20% on both fees, or the node’s higher suggestion', () => {
    expect(bumpedFees(fees(gwei(10), gwei(1)), node(gwei(3), gwei(1)), uncapped)).toEqual(
      fees(gwei(12), 1_200_000_000n),
    );
    expect(bumpedFees(fees(gwei(10), gwei(1)), node(gwei(40), gwei(2)), uncapped)).toEqual(
      fees(gwei(40), gwei(2)),
    );
  });

  it('the cap bounds a replacement; one the cap leaves below a node’s 12.5% minimum is not made', () => {
    const capped = (cap: bigint) => ({ replaceAfterMs: 1, maxFeePerGas: cap });
    expect(bumpedFees(fees(gwei(10), gwei(1)), node(gwei(3), gwei(1)), capped(gwei(11_25) / 100n))).toEqual(
      fees(11_250_000_000n, 1_200_000_000n),
    );
    expect(bumpedFees(fees(gwei(10), gwei(1)), node(gwei(3), gwei(1)), capped(gwei(11)))).toBeNull();
    // The tip never exceeds the fee cap (and must still rise by the minimum).
    expect(bumpedFees(fees(gwei(10), gwei(10)), node(0n, 0n), capped(gwei(12)))).toEqual(
      fees(gwei(12), gwei(12)),
    );
  });
});

describe('mint submissions', () => {
  it('a transaction not mined within the replace time is signed again with the same nonce and +20% fees; only one is mined and it is recorded; the batch is minted once', async () => {
    const res = await mintBatch('bump-1', 3);
    const supply = await chain.contract.totalSupply();
    const relayer = await newRelayer();
    await automine(false);
    // No block is mined while automine is paused, so the node's suggestion (what the first
    // signing offers) stays as it is.
    const firstFees = await chain.provider.getFeeData();
    const pass = relayer.processOpen();

    // The first signing sits in the mempool; after 1 s the relayer replaces it.
    const replaced = await eventually(
      async () => {
        const sub = await relayer.submission(res.batch_id);
        expect(sub.replacedHashes.length).toBeGreaterThanOrEqual(1);
        expect(sub.status).toBe('sent');
        return sub;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const original = replaced.replacedHashes[0]!;
    expect((await chain.provider.getTransaction(replaced.txHash!))!.nonce).toBe(replaced.nonce);
    expect(await mempoolHas(original)).toBe(false); // the node dropped it for the replacement
    expect(await mempoolHas(replaced.txHash!)).toBe(true);

    await mine();
    await automine(true);
    expect(await pass).toBe(1);

    const done = await relayer.submission(res.batch_id);
    expect(done.status).toBe('confirmed');
    expect(await mined(done.txHash!)).toBe(true);
    for (const h of done.replacedHashes) expect(await mined(h)).toBe(false);
    expect(done.replacedHashes[0]).toBe(original);
    // Same nonce, higher fees than the first signing: both fees at least +20%.
    const bumped = feesOf(done.rawTx!);
    expect(bumped.nonce).toBe(done.nonce);
    const receipt = (await chain.provider.getTransactionReceipt(done.txHash!))!;
    expect(receipt.status).toBe(1);
    expect(bumped.maxFeePerGas * 100n).toBeGreaterThanOrEqual(firstFees.maxFeePerGas! * 120n);
    expect(bumped.maxPriorityFeePerGas * 100n).toBeGreaterThanOrEqual(firstFees.maxPriorityFeePerGas! * 120n);

    const facts = await batchFacts(res.batch_id, done);
    expect(facts.logs).toHaveLength(1);
    expect(facts.logs[0]!.transactionHash).toBe(done.txHash);
    expect(facts.certs).toHaveLength(3);
    expect(facts.certs.every((c) => c.status === 'minted' && c.transaction_hash === done.txHash)).toBe(true);
    expect(facts.minted).toBe(3);
    expect(facts.events).toBe(3);
    expect(await chain.contract.totalSupply()).toBe(supply + 3n);
    expect(await (await newRelayer()).processOpen()).toBe(0);
  }, 60_000);

  it('a replacement that loses (the original is mined first) records the original hash, and nothing is minted twice', async () => {
    const res = await mintBatch('bump-lost', 2);
    const supply = await chain.contract.totalSupply();
    const relayer = await newRelayer();
    await automine(false);
    const sub = await relayer.submission(res.batch_id);
    const { txHash: original } = await relayer.submit(sub);
    await mine(); // the original is mined before the replacement reaches the node
    expect(await relayer.replace(sub)).toBe('lost');
    const replacement = sub.txHash!;
    expect(replacement).not.toBe(original);
    expect(await relayer.submission(res.batch_id)).toMatchObject({
      status: 'signed',
      txHash: replacement,
      replacedHashes: [original],
    });
    await automine(true);

    expect(await relayer.drive(sub)).toBe('confirmed');
    const done = await relayer.submission(res.batch_id);
    expect(done).toMatchObject({ status: 'confirmed', txHash: original, replacedHashes: [replacement] });
    expect(await mined(replacement)).toBe(false);
    const facts = await batchFacts(res.batch_id, done);
    expect(facts.logs.map((l) => l.transactionHash)).toEqual([original]);
    expect(facts.certs.every((c) => c.status === 'minted' && c.transaction_hash === original)).toBe(true);
    expect([facts.minted, facts.events]).toEqual([2, 2]);
    expect(await chain.contract.totalSupply()).toBe(supply + 2n);
  }, 60_000);

  it('a replacement persisted but not broadcast when the process died is sent by the restarted relayer and the mined hash is recorded', async () => {
    const res = await mintBatch('bump-crash', 2);
    const supply = await chain.contract.totalSupply();
    const crashed = await newRelayer();
    await automine(false);
    const sub = await crashed.submission(res.batch_id);
    const { txHash: original } = await crashed.submit(sub);
    expect(await crashed.replace(sub, { broadcast: false })).toBe('replaced');
    const replacement = sub.txHash!;
    expect(await mempoolHas(replacement)).toBe(false);

    // Restarted with a long replace time: it only re-broadcasts the persisted replacement.
    const restarted = await newRelayer({ replaceAfterMs: 60_000, maxFeePerGas: null });
    const pass = restarted.processOpen();
    await eventually(async () => expect(await mempoolHas(replacement)).toBe(true), { timeoutMs: 10_000 });
    expect(await mempoolHas(original)).toBe(false);
    await mine();
    await automine(true);
    expect(await pass).toBe(1);
    const done = await restarted.submission(res.batch_id);
    expect(done).toMatchObject({ status: 'confirmed', txHash: replacement, replacedHashes: [original] });
    const facts = await batchFacts(res.batch_id, done);
    expect(facts.logs.map((l) => l.transactionHash)).toEqual([replacement]);
    expect([facts.certs.length, facts.minted, facts.events]).toEqual([2, 2, 2]);
    expect(await chain.contract.totalSupply()).toBe(supply + 2n);
  }, 60_000);

  it('at the fee cap a stuck transaction is not replaced (nothing signed) and stays awaited', async () => {
    const res = await mintBatch('bump-capped', 1);
    await automine(false);
    const suggested = await chain.provider.getFeeData();
    const relayer = await newRelayer({ replaceAfterMs: 1000, maxFeePerGas: suggested.maxFeePerGas! });
    const sub = await relayer.submission(res.batch_id);
    const { txHash } = await relayer.submit(sub);
    expect(feesOf(sub.rawTx!).maxFeePerGas).toBe(suggested.maxFeePerGas);
    expect(await relayer.replace(sub)).toBe('capped');
    expect(await relayer.submission(res.batch_id)).toMatchObject({ txHash, replacedHashes: [], attempts: 1 });
    await mine();
    await automine(true);
    expect(await relayer.drive(sub)).toBe('confirmed');
    expect((await relayer.submission(res.batch_id)).txHash).toBe(txHash);
  }, 60_000);
});

describe('transfers', () => {
  async function mintedToHoldingAccount(
    key: string,
  ): Promise<{ certId: string; tokenId: bigint; from: string }> {
    const res = await api.mintBatch(
      {
        principal,
        idempotency_key: key,
        holder_address: '',
        holder_account: { kind: 'enterprise', id: '' },
        items: [{ name: key }],
      },
      CALL,
    );
    await (await newRelayer()).processOpen();
    const cert = await api.getCertificate({ principal, certificate_id: res.certificates[0]!.id }, CALL);
    return { certId: cert.id, tokenId: BigInt(cert.token_id!), from: cert.holder_address };
  }

  async function transferFacts(certId: string, tokenId: bigint) {
    const { rows: prov } = await pool.query<{ transaction_hash: string }>(
      "SELECT transaction_hash FROM provenance WHERE certificate_id = $1 AND kind = 'transferred'",
      [certId],
    );
    const { rows: events } = await pool.query<{ hash: string }>(
      `SELECT payload->'data'->'transfer'->>'transactionHash' AS hash FROM outbox
       WHERE type = 'certificate.transferred' AND payload->'data'->'object'->>'id' = $1`,
      [certId],
    );
    // the token's mint (one ConsecutiveTransfer or Transfer, by the deployment's mode) and its moves
    const moves = changesOfToken(
      parseOwnershipChanges(
        await chain.provider.getLogs({ address: chain.contract.address, fromBlock: 0 }),
        chain.contract.address,
      ),
      BigInt(tokenId),
    );
    return {
      prov: prov.map((p) => p.transaction_hash),
      events: events.map((e) => e.hash),
      moves: moves.length,
    };
  }

  it('a stuck transfer transaction is replaced with higher fees; the token moves once and the mined hash is recorded', async () => {
    const { certId, tokenId } = await mintedToHoldingAccount('xfer-bump-1');
    const transfers = await newTransfers();
    const to = anvilWallet(8).address;
    await transfers.transfer(scopeOf(principal), {
      certificateId: certId,
      idempotencyKey: 'xb-1',
      toAddress: to,
    });
    await automine(false);
    const pass = transfers.processOpen();
    const replaced = await eventually(
      async () => {
        const { rows } = await pool.query<{ status: string; tx_hash: string; replaced_hashes: string[] }>(
          'SELECT status, tx_hash, replaced_hashes FROM certificate_transfers WHERE transfer_key = $1',
          ['xb-1'],
        );
        expect(rows[0]!.replaced_hashes.length).toBeGreaterThanOrEqual(1);
        expect(rows[0]!.status).toBe('sent');
        return rows[0]!;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    expect(await mempoolHas(replaced.replaced_hashes[0]!)).toBe(false);
    await mine();
    await automine(true);
    expect(await pass).toBe(1);

    const { rows } = await pool.query<{ status: string; tx_hash: string; replaced_hashes: string[] }>(
      'SELECT status, tx_hash, replaced_hashes FROM certificate_transfers WHERE transfer_key = $1',
      ['xb-1'],
    );
    expect(rows[0]!.status).toBe('confirmed');
    expect(await mined(rows[0]!.tx_hash)).toBe(true);
    for (const h of rows[0]!.replaced_hashes) expect(await mined(h)).toBe(false);
    expect(await chain.contract.ownerOf(tokenId)).toBe(to);
    expect(await transferFacts(certId, tokenId)).toEqual({
      prov: [rows[0]!.tx_hash],
      events: [rows[0]!.tx_hash],
      moves: 2, // the mint and the one transfer
    });
    expect((await api.getCertificate({ principal, certificate_id: certId }, CALL)).holder_address).toBe(to);
  }, 60_000);

  it('a transfer replacement that loses (the original is mined first) records the original; the token moves once', async () => {
    const { certId, tokenId } = await mintedToHoldingAccount('xfer-bump-2');
    const transfers = await newTransfers();
    const to = anvilWallet(9).address;
    await transfers.transfer(scopeOf(principal), {
      certificateId: certId,
      idempotencyKey: 'xb-2',
      toAddress: to,
    });
    await automine(false);
    const [row] = (await transfers.sender.open(50)).filter((r) => r.transfer_key === 'xb-2');
    expect(await transfers.sender.send(row!)).toBe(true);
    const original = row!.tx_hash!;
    await mine();
    expect(await transfers.sender.replace(row!)).toBe('lost');
    const replacement = row!.tx_hash!;
    await automine(true);

    // A restarted sender finds the original mined among the hashes and records it.
    expect(await (await newTransfers()).processOpen()).toBe(1);
    const { rows } = await pool.query<{ status: string; tx_hash: string; replaced_hashes: string[] }>(
      'SELECT status, tx_hash, replaced_hashes FROM certificate_transfers WHERE transfer_key = $1',
      ['xb-2'],
    );
    expect(rows[0]).toEqual({ status: 'confirmed', tx_hash: original, replaced_hashes: [replacement] });
    expect(await mined(replacement)).toBe(false);
    expect(await chain.contract.ownerOf(tokenId)).toBe(to);
    expect(await transferFacts(certId, tokenId)).toEqual({ prov: [original], events: [original], moves: 2 });
  }, 60_000);
});

describe('allowlist writes', () => {
  it('a stuck addToAllowlist transaction takes the same path: replaced with the same nonce and higher fees, the addresses recorded once', async () => {
    const relayer = await newRelayer();
    const allowlist = new AllowlistStore(pool);
    const addresses = [Wallet.createRandom().address, Wallet.createRandom().address];
    for (const a of addresses) await allowlist.request(a, null);
    const processor = new AllowlistProcessor({
      store: allowlist,
      contract: chain.contract,
      tx: relayer.tx,
      confirmations: 1,
      batchSize: 10,
      maxRetries: 0,
      retryDelayMs: 0,
      receiptTimeoutMs: 20_000,
      log,
    });
    await automine(false);
    const nonce = await chain.provider.getTransactionCount(relayer.address, 'pending');
    const pass = processor.runOnce();
    // the first signing, then (after 1 s) its replacement: both hold the same nonce, and only the
    // replacement stays in the mempool
    const hashes = new Set<string>();
    await eventually(
      async () => {
        const block = (await chain.provider.send('eth_getBlockByNumber', ['pending', true])) as {
          transactions: { hash: string; nonce: string; maxFeePerGas: string }[];
        };
        for (const t of block.transactions) if (Number(t.nonce) === nonce) hashes.add(t.hash);
        expect(hashes.size).toBeGreaterThanOrEqual(2);
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    await mine();
    await automine(true);
    expect(await pass).toMatchObject({ succeeded: 2, failed: 0 });
    const entries = await Promise.all(addresses.map((a) => allowlist.get(a)));
    const recorded = entries.map((e) => e!.transactionHash);
    expect(new Set(recorded).size).toBe(1);
    expect(hashes.has(recorded[0]!)).toBe(true);
    const winner = (await chain.provider.getTransaction(recorded[0]!))!;
    expect(winner.nonce).toBe(nonce);
    expect([...hashes].filter((h) => h !== recorded[0]).length).toBeGreaterThanOrEqual(1);
    for (const a of addresses) expect(await chain.contract.isAllowlisted(a)).toBe(true);
  }, 60_000);
});
