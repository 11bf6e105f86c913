// Mints in flight together are signed with gas for where they land, not only for where their
// estimate ran: on a fresh contract a batch of 300 and then one of 500 (another holder) are
// signed while nothing is mined (anvil's automine paused), so the 500's estimate starts it at
// token 1 (no 256-id checkpoint inside it); mined in one block after the 300, it starts at 301
// and writes a checkpoint at 768 (two new storage slots, ~44k gas, more than +20% of its
// estimate). Both are minted: the relayer's headroom covers it (without it the 500 reverted out
// of gas, as seen with 8 mints in flight on 2 s blocks).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
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
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('mint-gas-test', 'silent');

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;

const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

const anvilLog = join(tmpdir(), `hallmark-anvil-gas-${process.pid}.log`);

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates_mintgas');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 6,
  });
  chain = await connectTestChain(anvil, pool, log);
}, 60_000);

afterAll(async () => {
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

it('two mints signed on one state and mined in one block: the second, crossing a checkpoint its estimate did not, is minted', async () => {
  const store = new CertificatesStore(pool, () => chain.contract.address);
  const api = createCertificatesHandlers({ store, provider: chain.provider });
  const relayer = new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    log,
    receiptTimeoutMs: 20_000,
    pollMs: 50,
  });
  const mint = (key: string, n: number, holder: number) =>
    api.mintBatch(
      {
        principal,
        idempotency_key: key,
        holder_address: anvilWallet(holder).address,
        items: Array.from({ length: n }, (_, i) => ({ name: `${key} #${i + 1}` })),
      },
      CALL,
    );
  const small = await mint('gas-300', 300, 5);
  const large = await mint('gas-500', 500, 6);

  await chain.provider.send('evm_setAutomine', [false]);
  const pass = relayer.processOpen();
  const sent = await eventually(
    async () => {
      const { rows } = await pool.query<{ status: string; tx_hash: string }>(
        'SELECT status, tx_hash FROM chain_submissions WHERE batch_id = ANY($1) ORDER BY id',
        [[small.batch_id, large.batch_id]],
      );
      expect(rows.map((r) => r.status)).toEqual(['sent', 'sent']);
      return rows;
    },
    { timeoutMs: 20_000, intervalMs: 20 },
  );
  await chain.provider.send('evm_mine', []);
  await chain.provider.send('evm_setAutomine', [true]);
  expect(await pass).toBe(2);

  const [a, b] = await Promise.all(sent.map((s) => chain.provider.getTransactionReceipt(s.tx_hash)));
  expect([a!.blockNumber, a!.status, b!.status]).toEqual([b!.blockNumber, 1, 1]);
  // The 500 landed at token 301 and needed more than +20% of its estimate (made at token 1).
  const tx = (await chain.provider.getTransaction(sent[1]!.tx_hash))!;
  const estimateWithMargin = tx.gasLimit - 100_000n;
  expect(b!.gasUsed).toBeGreaterThan(estimateWithMargin);
  const { rows } = await pool.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM certificates WHERE batch_id = ANY($1) GROUP BY status`,
    [[small.batch_id, large.batch_id]],
  );
  expect(rows).toEqual([{ status: 'minted', n: 800 }]);
}, 60_000);
