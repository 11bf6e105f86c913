// Per-enterprise event modes on a real PostgreSQL and anvil: an enterprise's chain settings fix
// the events of the batches it records from then on (marketplaces → one Transfer per token; an
// explicit choice wins; neither → the deployment default), the relayer mints each batch with its
// own mode on one contract, and every batch is recorded minted whichever mode minted it.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { parseOwnershipChanges } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import { connectChain, type Chain } from '../src/chain/setup.js';
import { createChainSettingsHandlers } from '../src/chain-settings/rpc.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('chain-settings-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-chain-settings-${process.pid}.log`);

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let relayer: Relayer;
let api: ReturnType<typeof createCertificatesHandlers>;
let settings: ReturnType<typeof createChainSettingsHandlers>;

const principal = (): Principal => ({
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
});

/** Mints 3 certificates for `p` and answers the events its transaction announced them with. */
async function mintedWith(p: Principal): Promise<string[]> {
  const res = await api.mintBatch(
    {
      principal: p,
      idempotency_key: newId('apiKey'),
      holder_address: anvilWallet(5).address,
      items: [1, 2, 3].map((i) => ({ name: `Watch #${i}` })),
    },
    CALL,
  );
  await relayer.processOpen();
  const sub = await relayer.submission(res.batch_id);
  expect(sub.status).toBe('confirmed');
  const receipt = (await chain.provider.getTransactionReceipt(sub.txHash!))!;
  return parseOwnershipChanges(receipt, chain.contract.address).map((c) => c.event);
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
  chain = await connectChain(
    {
      rpcUrl: anvil.rpcUrl,
      relayerKey: anvilWallet(0).privateKey,
      chainId: anvil.chainId,
      baseURI: 'https://h.test/m/',
      transferEvents: 'erc2309', // the deployment default
    },
    pool,
    log,
  );
  const store = new CertificatesStore(pool, () => chain.contract.address);
  api = createCertificatesHandlers({ store, provider: chain.provider });
  settings = createChainSettingsHandlers({ pool, deploymentDefault: () => chain.transferEvents });
  relayer = new Relayer({
    pool,
    provider: chain.provider,
    signer: chain.signer,
    contract: chain.contract,
    chainId: chain.chainId,
    confirmations: 1,
    store,
    defaultTransferEvents: chain.transferEvents,
    log,
    receiptTimeoutMs: 20_000,
    pollMs: 50,
  });
}, 60_000);

afterAll(async () => {
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

describe('chain settings', () => {
  it('an enterprise with no settings mints with the deployment default (ERC-2309 here)', async () => {
    const p = principal();
    expect(await settings.getChainSettings({ principal: p }, CALL)).toEqual({
      marketplaces: false,
      transfer_events: '',
      effective_transfer_events: 'consecutive',
      source: 'deployment',
      updated_at: '',
    });
    expect(await mintedWith(p)).toEqual(['ConsecutiveTransfer']);
  }, 60_000);

  it('an enterprise that sells on marketplaces mints one Transfer per token', async () => {
    const p = principal();
    const saved = await settings.setChainSettings(
      { principal: p, marketplaces: true, transfer_events: '' },
      CALL,
    );
    expect(saved).toMatchObject({
      marketplaces: true,
      effective_transfer_events: 'per_token',
      source: 'marketplaces',
    });
    expect(await mintedWith(p)).toEqual(['Transfer', 'Transfer', 'Transfer']);
  }, 60_000);

  it('an explicit choice wins over the marketplaces default, and only for that enterprise', async () => {
    const a = principal();
    const b = principal();
    await settings.setChainSettings(
      { principal: a, marketplaces: true, transfer_events: 'consecutive' },
      CALL,
    );
    await settings.setChainSettings(
      { principal: b, marketplaces: false, transfer_events: 'per_token' },
      CALL,
    );
    expect(await settings.getChainSettings({ principal: a }, CALL)).toMatchObject({ source: 'enterprise' });
    expect(await mintedWith(a)).toEqual(['ConsecutiveTransfer']);
    expect(await mintedWith(b)).toEqual(['Transfer', 'Transfer', 'Transfer']);
  }, 60_000);

  it('refuses an unknown mode (parameter_invalid transferEvents) and keeps the settings', async () => {
    const p = principal();
    await settings.setChainSettings({ principal: p, marketplaces: true, transfer_events: '' }, CALL);
    const err = await settings
      .setChainSettings({ principal: p, marketplaces: false, transfer_events: 'erc721' }, CALL)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'transferEvents' });
    expect(await settings.getChainSettings({ principal: p }, CALL)).toMatchObject({ marketplaces: true });
  });
});
