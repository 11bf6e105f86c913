// The shared setup of fee-bump.test.ts and fee-bump-transfers.test.ts: a real PostgreSQL and a
// real anvil, the certificates handlers in-process, and the helpers that pause mining, mint a
// batch and read back everything recorded about it. Importing this module registers the
// beforeAll/afterEach/afterAll that start and stop them for the importing test file.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, Encryptor, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { BATCH_MINTED_TOPIC } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer, type Submission } from '../src/chain/relayer.js';
import type { FeePolicy } from '../src/chain/replacement.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { WalletStore } from '../src/wallets/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
export const CALL = { requestId: 'req_test', deadlineMs: Infinity };
export const log = createLogger('fee-bump-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-fee-bump-${process.pid}.log`);
export const HOLDER = anvilWallet(5).address;
export const FAST: FeePolicy = { replaceAfterMs: 1000, maxFeePerGas: null };
export const gwei = (n: number) => BigInt(n) * 10n ** 9n;

export let anvil: AnvilHandle;
export let database: string;
export let pool: Pool;
export let chain: Chain;
export let store: CertificatesStore;
export let wallets: WalletStore;
export let api: ReturnType<typeof createCertificatesHandlers>;
const chainsToClose: Chain[] = [];

export const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

export async function connect(): Promise<Chain> {
  const c = await connectTestChain(anvil, pool, log);
  chainsToClose.push(c);
  return c;
}

/** A relayer as a freshly started process would build it. */
export async function newRelayer(
  feePolicy: FeePolicy = FAST,
  { receiptTimeoutMs = 20_000 }: { receiptTimeoutMs?: number } = {},
): Promise<Relayer> {
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
    receiptTimeoutMs,
    feePolicy,
    pollMs: 50,
  });
}

export async function newTransfers(feePolicy: FeePolicy = FAST): Promise<TransferService> {
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

export const automine = (on: boolean) => chain.provider.send('evm_setAutomine', [on]);
export const mine = () => chain.provider.send('evm_mine', []);
export const mempoolHas = async (hash: string) => (await chain.provider.getTransaction(hash)) !== null;
export const mined = async (hash: string) => (await chain.provider.getTransactionReceipt(hash)) !== null;

export async function mintBatch(key: string, n: number) {
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
export async function batchFacts(batchId: string, sub: Submission) {
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
