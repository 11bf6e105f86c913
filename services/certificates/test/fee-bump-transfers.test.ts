// Fee bump of a transfer's and an allowlist write's stuck transaction (fee-bump-fixture.ts): the
// same path as a mint's (src/chain/tx-sender.ts) — replaced with the same nonce and higher fees,
// the mined hash recorded, the token moved and the addresses written once.
import { describe, expect, it } from '@jest/globals';
import { scopeOf } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { Wallet } from 'ethers';
import { AllowlistProcessor } from '../src/allowlist/workers/processor.js';
import { AllowlistStore } from '../src/allowlist/store.js';
import { changesOfToken, parseOwnershipChanges } from '../src/chain/contract.js';
import { anvilWallet } from '../src/chain/dev-accounts.js';
import {
  api,
  automine,
  CALL,
  chain,
  log,
  mine,
  mined,
  mempoolHas,
  newRelayer,
  newTransfers,
  pool,
  principal,
} from './fee-bump-fixture.js';

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
