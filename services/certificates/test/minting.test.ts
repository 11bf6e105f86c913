// MintBatch → relayer → chain → minted certificates, on a real PostgreSQL and a real anvil,
// with the service's handlers in-process. Crash safety: a relayer is discarded after each
// step where a process could die, and a new one on the same database finishes the batch
// exactly once. Everything runs against a contract of each event mode (ERC-2309 batches and
// per-token Transfer events), so reconciliation finds a batch's tokens from the receipt in both.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startAnvil, type AnvilHandle } from '@hallmark/devstack';
import { createLogger, HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { MintBatchResponse, MintItem } from '@hallmark/proto/certificates/v1/certificates';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { Wallet } from 'ethers';
import path from 'node:path';
import { TRANSFER_EVENT_MODES, buildBatchTree, type TransferEventMode } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import { Relayer } from '../src/chain/relayer.js';
import { connectChain, type Chain } from '../src/chain/setup.js';
import { createCertificatesHandlers } from '../src/rpc.js';
import { CertificatesStore } from '../src/store.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('certificates-test', 'silent');
const anvilLog = join(tmpdir(), `hallmark-anvil-minting-${process.pid}.log`);
const RELAYER_KEY = anvilWallet(0).privateKey;
const HOLDER = anvilWallet(5).address;

let anvil: AnvilHandle;
let database: string;
let pool: Pool;
let chain: Chain;
let store: CertificatesStore;
let api: ReturnType<typeof createCertificatesHandlers>;
const chainsToClose: Chain[] = [];
let mode: TransferEventMode = 'erc2309';

async function connect(): Promise<Chain> {
  const c = await connectChain(
    {
      rpcUrl: anvil.rpcUrl,
      relayerKey: RELAYER_KEY,
      chainId: anvil.chainId,
      baseURI: 'https://hallmark.test/m/',
      transferEvents: mode,
    },
    pool,
    log,
  );
  chainsToClose.push(c);
  return c;
}

/** A relayer as a freshly started process would build it: its own provider, signer, state. */
async function newRelayer(): Promise<Relayer> {
  const c = await connect();
  return new Relayer({
    pool,
    provider: c.provider,
    signer: c.signer,
    contract: c.contract,
    chainId: c.chainId,
    confirmations: 1,
    store,
    defaultTransferEvents: c.transferEvents,
    log,
    receiptTimeoutMs: 20_000,
  });
}

const principal = (enterpriseId = newId('enterprise')): Principal => ({
  enterprise_id: enterpriseId,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: ['certificates.create'],
});

const items = (n: number, tag = 'Watch'): MintItem[] =>
  Array.from({ length: n }, (_, i) => ({
    name: `${tag} #${i + 1}`,
    image_url: `https://img.hallmark.test/${tag}/${i + 1}.png`,
    metadata_json: JSON.stringify({ artist: 'Atelier Hallmark', edition: i + 1 }),
    category: 'watches',
  }));

function mint(p: Principal, key: string, list: MintItem[]): Promise<MintBatchResponse> {
  return api.mintBatch({ principal: p, idempotency_key: key, holder_address: HOLDER, items: list }, CALL);
}

const supply = () => chain.contract.totalSupply();

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), logFile: anvilLog });
}, 60_000);

afterAll(async () => {
  for (const c of chainsToClose) c.provider.destroy();
  await anvil?.stop();
  rmSync(anvilLog, { force: true });
});

// One database per mode: a service's database belongs to one contract (token ids are unique in it).
describe.each(TRANSFER_EVENT_MODES)('with %s events', (m) => {
  beforeAll(async () => {
    mode = m;
    database = uniqueDatabaseName('certificates');
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database,
      migrationsDirs: [MIGRATIONS_DIR],
      max: 6,
    });
    chain = await connect();
    expect(chain.transferEvents).toBe(m);
    store = new CertificatesStore(pool, () => chain.contract.address);
    api = createCertificatesHandlers({ store, provider: chain.provider });
  }, 60_000);

  afterAll(async () => {
    await closeTestDatabase(pool, database);
  });

  describe('MintBatch', () => {
    it('mints a batch: token ids, chain refs, provenance, events; tokens owned by the holder, metadata proven on chain', async () => {
      const p = principal();
      const before = await supply();
      const res = await mint(p, 'order-1001', items(3));
      expect(res).toMatchObject({ status: 'pending', replayed: false });
      expect(res.certificates.map((c) => c.status)).toEqual(['pending', 'pending', 'pending']);

      expect(await (await newRelayer()).processOpen()).toBe(1);

      const ids = res.certificates.map((c) => c.id);
      const minted = await Promise.all(
        ids.map((id) => api.getCertificate({ principal: p, certificate_id: id }, CALL)),
      );
      const first = BigInt(minted[0]!.token_id!);
      expect(first).toBe(before + 1n);
      minted.forEach((c, i) => {
        expect(c).toMatchObject({ status: 'minted', token_id: Number(first) + i, holder_address: HOLDER });
        expect(c.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(c.transaction_hash).toBe(minted[0]!.transaction_hash);
        expect(c.block_number).toBeGreaterThan(0);
        expect(JSON.parse(c.metadata_json)).toEqual({
          name: `Watch #${i + 1}`,
          artist: 'Atelier Hallmark',
          edition: i + 1,
          category: 'watches',
          tokenId: Number(first) + i,
        });
        expect(c.provenance).toEqual([
          {
            kind: 'minted',
            actor: p.actor_id,
            from: '0x0000000000000000000000000000000000000000',
            to: HOLDER,
            transaction_hash: c.transaction_hash,
            block_number: c.block_number,
            at: expect.any(String),
          },
        ]);
      });
      expect(await supply()).toBe(before + 3n);
      const receipt = await chain.provider.getTransactionReceipt(minted[0]!.transaction_hash!);
      expect(receipt?.blockNumber).toBe(minted[0]!.block_number);

      // On chain: the holder owns each token, and each certificate's metadata hash is proven
      // against the batch root the relayer minted with (anchored under the batch's key).
      const tree = buildBatchTree(minted.map((c) => c.metadata_hash));
      const [batch] = chain.contract.parseBatchMinted(receipt!);
      expect(batch?.merkleRoot).toBe(tree.root);
      for (const [i, c] of minted.entries()) {
        expect(await chain.contract.ownerOf(c.token_id!)).toBe(HOLDER);
        expect(
          await chain.contract.verifyCertificate(
            c.token_id!,
            batch!.batchKey,
            c.metadata_hash,
            tree.proof(i),
          ),
        ).toBe(true);
      }

      // One event for the batch (not one per certificate), naming each certificate and token.
      const { rows: events } = await pool.query<{
        type: string;
        payload: { data: { object: Record<string, unknown> } };
      }>(
        `SELECT type, payload FROM outbox WHERE type IN ('certificate.minted', 'certificate.batch_minted')
           AND payload->'data'->'object'->>'batchId' = $1 ORDER BY seq`,
        [res.batch_id],
      );
      expect(events.map((e) => e.type)).toEqual(['certificate.batch_minted']);
      expect(events[0]!.payload.data.object).toEqual({
        batchId: res.batch_id,
        quantity: 3,
        firstTokenId: Number(first),
        holderAddress: HOLDER,
        transactionHash: minted[0]!.transaction_hash,
        blockNumber: minted[0]!.block_number,
        certificates: ids.map((id, i) => ({ id, tokenId: Number(first) + i })),
      });

      // Public read: no principal needed; unknown ids are not found.
      const pub = await api.getPublicCertificate({ certificate_id: ids[0]! }, CALL);
      expect(pub).toMatchObject({ id: ids[0], name: 'Watch #1', status: 'minted' });
      await expect(
        api.getPublicCertificate({ certificate_id: newId('certificate') }, CALL),
      ).rejects.toMatchObject({
        code: 'resource_not_found',
      });
      // The batched public read answers each certificate exactly as the single read does;
      // unknown, malformed and repeated ids are simply not answered twice or at all.
      const many = await api.getPublicCertificates(
        { certificate_ids: [ids[2]!, newId('certificate'), 'not an id', ids[0]!, ids[1]!, ids[0]!] },
        CALL,
      );
      expect(many.certificates.map((c) => c.id).sort()).toEqual([...ids].sort());
      for (const c of many.certificates) {
        expect(c).toEqual(await api.getPublicCertificate({ certificate_id: c.id }, CALL));
      }
      await expect(
        api.getPublicCertificates({ certificate_ids: Array.from({ length: 101 }, () => ids[0]!) }, CALL),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'certificate_ids' });
      // Another enterprise does not see it.
      await expect(
        api.getCertificate({ principal: principal(), certificate_id: ids[0]! }, CALL),
      ).rejects.toMatchObject({
        code: 'resource_not_found',
      });
    });

    it('a replay with the same key answers the same certificates and mints nothing; another request with the key is a conflict', async () => {
      const p = principal();
      const first = await mint(p, 'order-2002', items(2, 'Ring'));
      await (await newRelayer()).processOpen();
      const supplyAfter = await supply();

      const replay = await mint(p, 'order-2002', items(2, 'Ring'));
      expect(replay.replayed).toBe(true);
      expect(replay.batch_id).toBe(first.batch_id);
      expect(replay.status).toBe('minted');
      expect(replay.certificates.map((c) => c.id)).toEqual(first.certificates.map((c) => c.id));
      expect(replay.certificates.every((c) => c.status === 'minted' && c.token_id !== undefined)).toBe(true);

      expect(await (await newRelayer()).processOpen()).toBe(0);
      expect(await supply()).toBe(supplyAfter);
      const { rows } = await pool.query(
        'SELECT count(*)::int AS n FROM certificate_batches WHERE idempotency_key = $1',
        ['order-2002'],
      );
      expect(rows[0]).toEqual({ n: 1 });

      const err = await mint(p, 'order-2002', items(3, 'Ring')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HallmarkError);
      expect(err).toMatchObject({ code: 'resource_already_exists', param: 'idempotency_key' });
      // Concurrent first calls with one key: one batch, both answers name it.
      const [c1, c2] = await Promise.all([mint(p, 'order-2003', items(1)), mint(p, 'order-2003', items(1))]);
      expect(c1.batch_id).toBe(c2.batch_id);
      expect([c1.replayed, c2.replayed].sort()).toEqual([false, true]);
      // The same key in another enterprise is another batch.
      const other = await mint(principal(), 'order-2002', items(2, 'Ring'));
      expect(other.replayed).toBe(false);
      await (await newRelayer()).processOpen();
    });

    it('answers a large batch lean when asked: status_only without certificates, refs_only with ids and chain refs in item order', async () => {
      const p = principal();
      const lean = await api.mintBatch(
        {
          principal: p,
          idempotency_key: 'order-lean',
          holder_address: HOLDER,
          items: items(3),
          status_only: true,
        },
        CALL,
      );
      expect(lean).toMatchObject({ status: 'pending', replayed: false, certificates: [], minted: [] });
      await (await newRelayer()).processOpen();
      const get = (o: { refs_only?: boolean; status_only?: boolean }) =>
        api.getMintBatch(
          { principal: p, batch_id: lean.batch_id, wait_ms: 0, status_only: false, ...o },
          CALL,
        );
      const whole = await get({});
      const refs = await get({ refs_only: true });
      expect(refs).toMatchObject({ batch_id: lean.batch_id, status: 'minted', certificates: [] });
      // The same certificates, in the same order, with the same chain references as the whole read.
      expect(refs.minted).toEqual(
        whole.certificates.map((c) => ({
          id: c.id,
          token_id: c.token_id,
          transaction_hash: c.transaction_hash,
          block_number: c.block_number,
        })),
      );
      expect(refs.minted.every((r) => r.token_id !== undefined)).toBe(true);
      expect(await get({ status_only: true })).toMatchObject({
        status: 'minted',
        certificates: [],
        minted: [],
      });
      // Another enterprise's batch is not found, lean or not.
      await expect(
        api.getMintBatch(
          {
            principal: principal(),
            batch_id: lean.batch_id,
            wait_ms: 0,
            status_only: false,
            refs_only: true,
          },
          CALL,
        ),
      ).rejects.toMatchObject({ code: 'resource_not_found' });
    });

    it('refuses invalid requests with the parameter named', async () => {
      const p = principal();
      await expect(mint(p, '', items(1))).rejects.toMatchObject({
        code: 'parameter_missing',
        param: 'idempotency_key',
      });
      await expect(
        api.mintBatch({ principal: p, idempotency_key: 'k', holder_address: '0x123', items: items(1) }, CALL),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'holder_address' });
      await expect(mint(p, 'k', [{ name: ' ' }])).rejects.toMatchObject({ param: 'items[0].name' });
      await expect(mint(p, 'k', [{ name: 'x', metadata_json: '[1]' }])).rejects.toMatchObject({
        param: 'items[0].metadata',
      });
    });
  });

  describe('crash safety', () => {
    it('crash after the transaction was sent but before it was recorded: reconciliation records it, nothing is minted again', async () => {
      const res = await mint(principal(), 'crash-after-send', items(4, 'Bag'));
      const crashed = await newRelayer();
      const sub = await crashed.submission(res.batch_id);
      const { txHash } = await crashed.submit(sub); // signed, persisted, broadcast … then the process dies
      const supplyAfterSend = await supply();
      expect(await crashed.submission(res.batch_id)).toMatchObject({ status: 'sent', txHash });

      const restarted = await newRelayer();
      expect(await restarted.processOpen()).toBe(1);
      expect(await supply()).toBe(supplyAfterSend);
      const done = await restarted.submission(res.batch_id);
      expect(done).toMatchObject({ status: 'confirmed', txHash, attempts: 1 });
      const certs = (await store.readBatch(res.batch_id)).certificates.map((c) => c.certificate);
      expect(certs.every((c) => c.status === 'minted' && c.transactionHash === txHash)).toBe(true);
      expect(await chain.contract.ownerOf(certs[3]!.tokenId!)).toBe(HOLDER);
      expect(await restarted.processOpen()).toBe(0);
      expect(await supply()).toBe(supplyAfterSend);
    });

    it('crash after signing and persisting but before sending: the restarted relayer sends it exactly once', async () => {
      const res = await mint(principal(), 'crash-before-send', items(5, 'Pen'));
      const before = await supply();
      const crashed = await newRelayer();
      const { txHash } = await crashed.submit(await crashed.submission(res.batch_id), { broadcast: false });
      expect(await chain.provider.getTransaction(txHash)).toBeNull();
      expect(await supply()).toBe(before);

      const restarted = await newRelayer();
      expect(await restarted.processOpen()).toBe(1);
      expect(await supply()).toBe(before + 5n);
      // The persisted signed transaction itself was sent (same hash), once.
      expect(await restarted.submission(res.batch_id)).toMatchObject({
        status: 'confirmed',
        txHash,
        attempts: 1,
      });
      expect(await restarted.processOpen()).toBe(0);
      expect(await supply()).toBe(before + 5n);
    });

    it('crash before signing: the pending submission is sent exactly once; a persisted transaction whose nonce went elsewhere is signed again', async () => {
      const p = principal();
      const a = await mint(p, 'crash-pending-a', items(2, 'Cup'));
      const b = await mint(p, 'crash-pending-b', items(2, 'Cup'));
      const before = await supply();
      const crashed = await newRelayer();
      // A signed (nonce n) but never broadcast; then B takes nonce n and is mined.
      const stale = await crashed.submit(await crashed.submission(a.batch_id), { broadcast: false });
      const subB = await crashed.submission(b.batch_id);
      await crashed.submit(subB);
      expect((await crashed.submission(b.batch_id)).nonce).toBe((await crashed.submission(a.batch_id)).nonce);

      const restarted = await newRelayer();
      expect(await restarted.processOpen()).toBe(2);
      expect(await supply()).toBe(before + 4n);
      const subA = await restarted.submission(a.batch_id);
      expect(subA.status).toBe('confirmed');
      expect(subA.txHash).not.toBe(stale.txHash);
      expect(subA.attempts).toBe(2);
      const { rows } = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM certificates WHERE batch_id = ANY($1) AND status = 'minted'",
        [[a.batch_id, b.batch_id]],
      );
      expect(rows[0]!.n).toBe(4);
    });
  });

  describe('chain setup and health', () => {
    it('a restart reuses the dev contract recorded in chain_state', async () => {
      const again = await connect();
      expect(again.contract.address).toBe(chain.contract.address);
      const { rows } = await pool.query('SELECT value FROM chain_state WHERE key = $1', [
        `contract:${anvil.chainId}`, // one dev contract whatever the default mode: batches choose
      ]);
      expect(rows).toEqual([{ value: chain.contract.address }]);
    });

    it('health reports the database and the chain', async () => {
      const h = await api.health({}, CALL);
      expect(h).toMatchObject({ database: true, chain: true });
      expect(h.block_number).toBeGreaterThan(0);
      const noChain = createCertificatesHandlers({ store, provider: null });
      expect(await noChain.health({}, CALL)).toMatchObject({ database: true, chain: false });
    });

    it('health reports a relayer balance under HALLMARK_RELAYER_BALANCE_FLOOR_WEI as low', async () => {
      const balance = await chain.provider.getBalance(chain.signer.address);
      const at = (floorWei: bigint, addresses = [chain.signer.address]) =>
        createCertificatesHandlers({
          store,
          provider: chain.provider,
          relayer: { addresses, floorWei },
        }).health({}, CALL);
      const low = await at(balance + 10n ** 18n);
      expect(low).toMatchObject({ chain: true, relayer_low: true });
      expect(BigInt(low.relayer_balance_wei!)).toBeGreaterThan(0n);
      expect(await at(1n)).toMatchObject({ relayer_low: false });
      // Every mint signer pays its own gas: a second signer run dry is low, whatever the first has.
      const dry = Wallet.createRandom().address;
      expect(await at(1n, [chain.signer.address, dry])).toMatchObject({
        relayer_low: true,
        relayer_balance_wei: '0',
      });
      // No floor configured: never low.
      expect((await api.health({}, CALL)).relayer_low).toBe(false);
    });
  });
});
