// Fee bump of stuck transactions on a real PostgreSQL and a real anvil, handlers in-process:
// with anvil's automine paused a mint's (or a transfer's) transaction sits in the mempool; the
// relayer signs it again with the same nonce and higher fees, persisted before the broadcast,
// and whichever of the hashes is mined is recorded, exactly once. A replacement that loses
// (the original is mined first) and one persisted but never broadcast (a crash) are recorded
// as the hash the chain actually mined. Mints, transfers and allowlist writes take the same
// path (src/chain/tx-sender.ts).
import { describe, expect, it } from '@jest/globals';
import { eventually } from '@hallmark/kit/testing';
import { FeeData } from 'ethers';
import type { Relayer, Submission } from '../src/chain/relayer.js';
import { bumpedFees, feesOf, type FeePolicy } from '../src/chain/replacement.js';
import {
  automine,
  batchFacts,
  chain,
  gwei,
  HOLDER,
  mine,
  mined,
  mempoolHas,
  mintBatch,
  newRelayer,
} from './fee-bump-fixture.js';

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

/** The submission of `batchId` once `relayer`'s pass has broadcast it. */
const sentBy = (relayer: Relayer, batchId: string) =>
  eventually(
    async () => {
      const sub = await relayer.submission(batchId);
      expect(sub.status).toBe('sent');
      return sub;
    },
    { timeoutMs: 15_000, intervalMs: 20 },
  );

/**
 * The node drops the transaction (as a mempool evicts under a fee spike) and another
 * transaction of the same signer takes its nonce, as a signing that read the pending count
 * then would; mined, with automine back on.
 */
async function dropAndTakeNonce(sent: Submission): Promise<void> {
  await chain.provider.send('anvil_dropTransaction', [sent.txHash]);
  const other = await chain.signer.sendTransaction({ to: HOLDER, value: 1n, nonce: sent.nonce! });
  await mine();
  await automine(true);
  expect((await other.wait())!.status).toBe(1);
}

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

  it('at the fee cap, a waited-for transaction whose nonce another transaction took ends its wait too (lost, not capped) and is signed again by the next pass', async () => {
    const res = await mintBatch('capped-taken', 1);
    await automine(false);
    const suggested = await chain.provider.getFeeData();
    // Signed at the cap: every replacement is `capped` (nothing signed, so no node refuses one).
    const relayer = await newRelayer(
      { replaceAfterMs: 1000, maxFeePerGas: suggested.maxFeePerGas! },
      { receiptTimeoutMs: 600_000 },
    );
    const pass = relayer.processOpen();
    const sent = await sentBy(relayer, res.batch_id);
    await dropAndTakeNonce(sent);

    expect(await pass).toBe(0);
    expect(await relayer.processOpen()).toBe(1);
    const done = await relayer.submission(res.batch_id);
    expect(done).toMatchObject({ status: 'confirmed', replacedHashes: [sent.txHash] });
    expect(done.nonce).toBeGreaterThan(sent.nonce!);
  }, 60_000);

  it('a waited-for transaction the node dropped, whose nonce another transaction took, ends its wait at once and is signed again with a fresh nonce by the next pass', async () => {
    const res = await mintBatch('nonce-taken', 2);
    const supply = await chain.contract.totalSupply();
    // Ten minutes of receipt timeout: a pass that waited it out would outlive the test.
    const relayer = await newRelayer(
      { replaceAfterMs: 2000, maxFeePerGas: null },
      { receiptTimeoutMs: 600_000 },
    );
    await automine(false);
    const pass = relayer.processOpen();
    const sent = await sentBy(relayer, res.batch_id);
    await dropAndTakeNonce(sent);

    // The waiting pass ends (its submission left waiting), long before the receipt timeout.
    expect(await pass).toBe(0);
    expect(await relayer.processOpen()).toBe(1);
    const done = await relayer.submission(res.batch_id);
    expect(done.status).toBe('confirmed');
    expect(done.nonce).toBeGreaterThan(sent.nonce!);
    expect(done.replacedHashes).toContain(sent.txHash);
    const facts = await batchFacts(res.batch_id, done);
    expect(facts.logs).toHaveLength(1);
    expect(facts.logs[0]!.transactionHash).toBe(done.txHash);
    expect(facts.minted).toBe(2);
    expect(await chain.contract.totalSupply()).toBe(supply + 2n);
  }, 60_000);
});
