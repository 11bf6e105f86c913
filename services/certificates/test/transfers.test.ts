// Transfers by the holder's signature on a real PostgreSQL and a real anvil, handlers
// in-process: a batch minted to the enterprise's custodial holding account, a certificate
// moved to a user's custodial wallet (the custodial key signs the TransferPermit, the relayer
// pays), the replay of the same transfer key, and a certificate not held by a custodial
// wallet refused.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, Encryptor, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { changesOfToken, parseOwnershipChanges } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import type { Chain } from '../src/chain/setup.js';
import { connectTestChain } from './test-chain.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';
import { TransferService } from '../src/transfers/service.js';
import { withTransfers } from '../src/transfers/workers/passes.js';
import { WalletStore } from '../src/wallets/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-transfers-${process.pid}.log`);
const KEYS = Encryptor.generateKey();

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let relayer: Relayer;
let api: ReturnType<typeof createCertificatesHandlers>;

const ent = newId('enterprise');
const principal: Principal = {
  enterprise_id: ent,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: 6,
  });
  chain = await connectTestChain(anvil, pool, log);
  const store = new CertificatesStore(pool, () => chain.contract.address);
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
  const wallets = new WalletStore(pool, KEYS);
  const transfers: TransferService = new TransferService({
    pool,
    store,
    wallets,
    chain: () => ({
      relayer,
      provider: chain.provider,
      signer: chain.signer,
      chainId: chain.chainId,
      confirmations: 1,
    }),
    log,
    // As the mint worker's pass does in the service.
    onRecorded: () => void driven.processOpen(),
    waitMs: 20_000,
    receiptTimeoutMs: 20_000,
  });
  const driven = withTransfers(relayer, transfers);
  api = createCertificatesHandlers({ store, provider: chain.provider, wallets, transfers });
}, 60_000);

afterAll(async () => {
  chain?.provider.destroy();
  await closeTestDatabase(pool, database);
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

async function mintTo(key: string, holder: { account?: true; address?: string }) {
  const res = await api.mintBatch(
    {
      principal,
      idempotency_key: key,
      holder_address: holder.address ?? '',
      holder_account: holder.account ? { kind: 'enterprise', id: '' } : undefined,
      items: [{ name: `${key} #1` }, { name: `${key} #2` }],
    },
    CALL,
  );
  await relayer.processOpen();
  return (await api.getCertificate({ principal, certificate_id: res.certificates[0]!.id }, CALL)).token_id !==
    undefined
    ? res
    : Promise.reject(new Error('not minted'));
}

async function errorOf(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    return err as HallmarkError;
  }
  throw new Error('expected a refusal');
}

describe('Transfer', () => {
  it('moves a certificate from the enterprise holding account to a user wallet on chain and in the record; a replay changes nothing', async () => {
    const holding = await api.ensureWallet({ principal, owner: { kind: 'enterprise', id: '' } }, CALL);
    const minted = await mintTo('xfer-batch-1', { account: true });
    expect(minted.certificates[0]!.holder_address).toBe(holding.address);
    const cert = await api.getCertificate({ principal, certificate_id: minted.certificates[0]!.id }, CALL);
    const tokenId = BigInt(cert.token_id!);
    expect(await chain.contract.ownerOf(tokenId)).toBe(holding.address);
    const relayerBalance = await chain.provider.getBalance(chain.signer.address);

    const user = newId('user');
    const req = { principal, certificate_id: cert.id, idempotency_key: 'gift-1', to_user_id: user };
    const res = await api.transfer(req, CALL);
    const userWallet = await api.ensureWallet({ principal, owner: { kind: 'user', id: user } }, CALL);
    expect(userWallet.created).toBe(false); // created by the transfer
    expect(res).toMatchObject({
      status: 'confirmed',
      replayed: false,
      from_address: holding.address,
      to_address: userWallet.address,
      transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      block_number: expect.any(Number),
    });
    expect(await chain.contract.ownerOf(tokenId)).toBe(userWallet.address);
    // The relayer paid the gas; the custodial wallets hold no ether at all.
    expect(await chain.provider.getBalance(chain.signer.address)).toBeLessThan(relayerBalance);
    expect(await chain.provider.getBalance(holding.address)).toBe(0n);
    const receipt = await chain.provider.getTransactionReceipt(res.transaction_hash!);
    expect(receipt!.from).toBe(chain.signer.address);

    expect(res.certificate!.holder_address).toBe(userWallet.address);
    expect(res.certificate!.provenance.map((p) => p.kind)).toEqual(['minted', 'transferred']);
    expect(res.certificate!.provenance[1]).toMatchObject({
      actor: principal.actor_id,
      from: holding.address,
      to: userWallet.address,
      transaction_hash: res.transaction_hash,
      block_number: res.block_number,
    });
    const { rows: events } = await pool.query<{ payload: { data: Record<string, unknown> } }>(
      `SELECT payload FROM outbox WHERE type = 'certificate.transferred' AND payload->'data'->'object'->>'id' = $1`,
      [cert.id],
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.data).toMatchObject({
      object: { id: cert.id, tokenId: Number(tokenId), holderAddress: userWallet.address },
      transfer: {
        from: holding.address,
        to: userWallet.address,
        toUserId: user,
        transactionHash: res.transaction_hash,
      },
    });

    // Replay: the same answer, nothing sent, nothing recorded again.
    const block = await chain.provider.getBlockNumber();
    const again = await api.transfer(req, CALL);
    expect(again).toMatchObject({
      status: 'confirmed',
      replayed: true,
      transaction_hash: res.transaction_hash,
    });
    expect(again.certificate!.provenance).toHaveLength(2);
    expect(await chain.provider.getBlockNumber()).toBe(block);
    // the token's mint (one ConsecutiveTransfer or Transfer, by the deployment's mode) and its moves
    const moves = changesOfToken(
      parseOwnershipChanges(
        await chain.provider.getLogs({ address: chain.contract.address, fromBlock: 0 }),
        chain.contract.address,
      ),
      BigInt(tokenId),
    );
    expect(moves).toHaveLength(2); // the mint and the one transfer
    const { rows: count } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM outbox WHERE type = 'certificate.transferred' AND payload->'data'->'object'->>'id' = $1`,
      [cert.id],
    );
    expect(Number(count[0]!.n)).toBe(1);

    // The key with another request is a conflict; the new holder is not the enterprise's
    // holding account any more, but it is a custodial wallet of the enterprise: it can move on.
    const conflict = await errorOf(api.transfer({ ...req, to_user_id: newId('user') }, CALL));
    expect(conflict).toMatchObject({ code: 'resource_already_exists', param: 'idempotency_key' });
    const onward = await api.transfer(
      { principal, certificate_id: cert.id, idempotency_key: 'onward-1', to_address: anvilWallet(7).address },
      CALL,
    );
    expect(onward.status).toBe('confirmed');
    expect(await chain.contract.ownerOf(tokenId)).toBe(anvilWallet(7).address);
  }, 60_000);

  it('refuses a certificate not held by a custodial wallet of the enterprise, and bad requests', async () => {
    const minted = await mintTo('xfer-batch-2', { address: anvilWallet(5).address });
    const id = minted.certificates[0]!.id;
    const refused = await errorOf(
      api.transfer(
        { principal, certificate_id: id, idempotency_key: 'x-1', to_user_id: newId('user') },
        CALL,
      ),
    );
    expect(refused).toMatchObject({ code: 'validation_failed' });
    expect(refused.message).toMatch(/custodial wallet/);
    const { rows } = await pool.query('SELECT 1 FROM certificate_transfers WHERE transfer_key = $1', ['x-1']);
    expect(rows).toHaveLength(0);

    const other = { ...principal, enterprise_id: newId('enterprise') };
    expect(
      await errorOf(
        api.transfer(
          { principal: other, certificate_id: id, idempotency_key: 'x-2', to_user_id: newId('user') },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'resource_not_found' });
    expect(
      await errorOf(api.transfer({ principal, certificate_id: id, idempotency_key: 'x-3' }, CALL)),
    ).toMatchObject({ code: 'parameter_missing', param: 'to_user_id' });
    expect(
      await errorOf(
        api.transfer({ principal, certificate_id: id, idempotency_key: 'x-4', to_address: '0x12' }, CALL),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'to_address' });
    expect(
      await errorOf(
        api.mintBatch(
          {
            principal,
            idempotency_key: 'both',
            holder_address: anvilWallet(5).address,
            holder_account: { kind: 'enterprise', id: '' },
            items: [{ name: 'x' }],
          },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'holder_account' });
  }, 60_000);
});
