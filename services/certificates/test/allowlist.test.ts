// Allowlist: address validation, then the handlers and the worker on a real PostgreSQL and
// anvil: addresses added in one batch transaction, the bounded wait, a failing batch retried by
// the retry job within its maximum, and a timed-out wait answering the current status.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { Wallet } from 'ethers';
import { parseAddress, parseWaitMs } from '../src/allowlist/domain.js';
import { AllowlistProcessor } from '../src/allowlist/workers/processor.js';
import { createAllowlistHandlers } from '../src/allowlist/rpc.js';
import { AllowlistStore } from '../src/allowlist/store.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { TxSender } from '../src/chain/tx-sender.js';
import { IntervalWorker } from '@hallmark/kit';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('allowlist-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-allowlist-${process.pid}.log`);

const principal: Principal = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

describe('allowlist domain', () => {
  it('takes 0x addresses (checksum checked when mixed case) and names the param otherwise', () => {
    const a = Wallet.createRandom().address;
    expect(parseAddress(a.toLowerCase())).toBe(a);
    const badChecksum =
      a.slice(0, 2) +
      [...a.slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    for (const bad of ['0x1234', 'hello', `${a}00`, a.slice(2)]) {
      expect(() => parseAddress(bad)).toThrow(
        expect.objectContaining({ code: 'parameter_invalid', param: 'address' }),
      );
    }
    // Mixed case both ways: swapped, it is still mixed (an all-upper swap would carry no
    // checksum at all, and be accepted as such).
    if (/[a-f]/.test(a.slice(2)) && /[A-F]/.test(a.slice(2))) {
      expect(() => parseAddress(badChecksum)).toThrow(HallmarkError);
    }
    expect(() => parseAddress('')).toThrow(
      expect.objectContaining({ code: 'parameter_missing', param: 'address' }),
    );
    expect(parseWaitMs(undefined)).toBe(10_000);
    expect(() => parseWaitMs(30_001)).toThrow(expect.objectContaining({ param: 'timeoutMs' }));
  });
});

describe('allowlist on anvil', () => {
  let anvil: AnvilHandle;
  let database: string;
  let pool: Pool;
  let chain: Chain;
  let store: AllowlistStore;
  let api: ReturnType<typeof createAllowlistHandlers>;

  const processor = (sender: Wallet | ReturnType<typeof anvilWallet>, maxRetries = 2) =>
    new AllowlistProcessor({
      store,
      contract: chain.contract,
      tx: new TxSender({ provider: chain.provider, signer: sender, chainId: chain.chainId, log }),
      confirmations: 1,
      batchSize: 10,
      maxRetries,
      retryDelayMs: 0,
      receiptTimeoutMs: 20_000,
      log,
    });

  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
    database = uniqueDatabaseName('certificates_allowlist');
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database,
      migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
      max: 4,
    });
    chain = await connectTestChain(anvil, pool, log);
    store = new AllowlistStore(pool);
    api = createAllowlistHandlers({ store, contract: () => chain.contract, pollMs: 50 });
  }, 60_000);

  afterAll(async () => {
    chain?.provider.destroy();
    await closeTestDatabase(pool, database);
    await anvil?.stop();
    rmSync(anvilLog, { force: true });
  });

  it('adds requested addresses to the contract in one batch; wait-for-confirmation answers success', async () => {
    const addresses = Array.from({ length: 3 }, () => Wallet.createRandom().address);
    for (const a of addresses) {
      expect(await api.addToAllowlist({ principal, address: a.toLowerCase() }, CALL)).toMatchObject({
        address: a,
        requested: true,
        status: 'pending',
        retry_count: 0,
      });
    }
    const unknown = Wallet.createRandom().address;
    expect(await api.checkAllowlist({ principal, address: unknown }, CALL)).toMatchObject({
      requested: false,
      on_chain: false,
    });

    const worker = new IntervalWorker({ name: 'allowlist', intervalMs: 100, log }, () =>
      processor(chain.signer).runOnce(),
    );
    const waiting = api.waitForAllowlistConfirmation(
      { principal, address: addresses[2]!, timeout_ms: 10_000 },
      CALL,
    );
    await worker.start();
    try {
      expect(await waiting).toMatchObject({ status: 'success', on_chain: true, timed_out: false });
    } finally {
      await worker.stop();
    }
    const checks = await Promise.all(
      addresses.map((address) => api.checkAllowlist({ principal, address }, CALL)),
    );
    for (const c of checks) {
      expect(c).toMatchObject({ status: 'success', on_chain: true, retry_count: 0 });
      expect(c.transaction_hash).toBe(checks[0]!.transaction_hash);
      expect(c.last_attempt).toBeTruthy();
    }
    // Requested again: stays a success, nothing is queued.
    expect(await api.addToAllowlist({ principal, address: addresses[0]! }, CALL)).toMatchObject({
      status: 'success',
    });
  });

  it('a failed batch records the error; the retry job retries it up to the maximum', async () => {
    const address = Wallet.createRandom().address;
    await api.addToAllowlist({ principal, address }, CALL);
    const noRole = anvilWallet(7, chain.provider);

    expect(await processor(noRole).runOnce()).toMatchObject({ failed: 1 });
    expect(await api.checkAllowlist({ principal, address }, CALL)).toMatchObject({
      status: 'failed',
      error: 'HallmarkNotAdminOrMinter',
      retry_count: 0,
      on_chain: false,
    });

    // Retry 1 fails again, retry 2 (the last allowed) succeeds.
    expect(await processor(noRole).runOnce()).toMatchObject({ requeued: 1, failed: 1 });
    expect(await processor(chain.signer).runOnce()).toMatchObject({ requeued: 1, succeeded: 1 });
    expect(await api.checkAllowlist({ principal, address }, CALL)).toMatchObject({
      status: 'success',
      retry_count: 2,
      on_chain: true,
    });

    // With the retries used up a failed entry stays failed.
    const other = Wallet.createRandom().address;
    await api.addToAllowlist({ principal, address: other }, CALL);
    await processor(noRole, 0).runOnce();
    expect(await processor(chain.signer, 0).runOnce()).toMatchObject({ requeued: 0, succeeded: 0 });
    expect(await api.checkAllowlist({ principal, address: other }, CALL)).toMatchObject({ status: 'failed' });
  });

  it('wait-for-confirmation is bounded: it answers the current status with timed_out; unknown is not found', async () => {
    const address = Wallet.createRandom().address;
    await api.addToAllowlist({ principal, address }, CALL);
    const started = Date.now();
    expect(
      await api.waitForAllowlistConfirmation({ principal, address, timeout_ms: 300 }, CALL),
    ).toMatchObject({
      status: 'pending',
      timed_out: true,
      on_chain: false,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(
      api.waitForAllowlistConfirmation(
        { principal, address: Wallet.createRandom().address, timeout_ms: 0 },
        CALL,
      ),
    ).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});
