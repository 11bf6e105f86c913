// The relayer: turns chain_submissions rows into HallmarkCertificates.mintBatch transactions,
// exactly once per batch, across crashes and restarts.
//
// Events: each batch's mintBatch names its events (the mode MintBatch recorded from the
// enterprise's chain settings, else `defaultTransferEvents`).
//
// Life of a submission (see migrations/0001 for the states): MintBatch inserts it `pending`,
// in the transaction that records the batch, so it exists before anything is sent. `drive`
// always starts by asking the chain (`batchByKey`) whether the batch key is already consumed;
// only if not does it (re)send:
//   pending          → sign under the signer's mutex (nonce from the node), persist nonce, raw
//                      transaction and hash (`signed`), broadcast, mark `sent`;
//   signed | sent    → the transaction is known to the node: wait for it; unknown: broadcast
//                      the same signed bytes again (same hash: it can be mined at most once);
//                      refused as `nonce too low` (the nonce went to another transaction, so
//                      this one can never be mined): sign again with a fresh nonce;
//   sent, not mined  → after HALLMARK_CHAIN_REPLACE_AFTER_MS (counted from `sent_at`, so across
//                      restarts too) signed again with the SAME nonce and +20% fees (capped by
//                      HALLMARK_CHAIN_MAX_FEE_GWEI), the new bytes and hash persisted before the
//                      broadcast and the replaced hash kept in `replaced_hashes`. One nonce: at
//                      most one of the hashes can be mined; the wait watches all of them and the
//                      mined one is recorded.
// Signing, broadcasting, fee bumps and waiting are the one path of every relayer transaction
// (./tx-sender.ts, shared with transfers and allowlist writes); the submission's SQL is in
// ./submission-store.ts.
// It then waits for HALLMARK_CHAIN_CONFIRMATIONS confirmations and records the batch's first
// token id, transaction hash and block (`confirmed`) in the same database transaction that
// marks the certificates minted. The contract refuses a batch key twice, so even a bug here
// cannot mint a batch twice.
//
// Nonces: the node's pending transaction count, read under the TxSender's mutex that is held
// from reading the nonce until the node accepted the broadcast, so the next read already counts
// it. Only one process signs for a signer at a time (MintWorker holds a PostgreSQL advisory lock
// per signer address). No nonce counter is persisted on its own: a persisted counter drifts
// from the chain when a signed transaction never reaches it and then blocks every later nonce;
// what is persisted is each submission's nonce and signed bytes, which reconciliation needs.
//
// N signers (HALLMARK_RELAYER_SIGNERS): one Relayer per signer, each with its own TxSender (its
// nonce line and mutex) and its own MintWorker (its lock). A pending submission belongs to no
// signer until one claims it (`signer` set, FOR UPDATE SKIP LOCKED, as its window has room);
// from then on only that signer signs, bumps and re-signs it, so two signers never share a
// nonce. Submissions of a signer no longer configured are adopted by signer 1: their persisted
// bytes are re-broadcast and waited for (never fee-bumped: the key is gone), and re-signed with
// signer 1's key only when their nonce went elsewhere (the contract refuses a batch key twice).
// Each signer keeps up to HALLMARK_RELAYER_MAX_IN_FLIGHT submissions in flight: a window that
// refills as soon as one is final (or MintBatch records a batch), not in rounds.
import type { Logger, Pool, PoolClient, Queryable } from '@hallmark/kit';
import { gaugeFrom, transaction } from '@hallmark/kit';
import type { JsonRpcProvider, TransactionReceipt, Wallet } from 'ethers';
import type { CertificatesStore } from '../store.js';
import {
  BATCH_MINTED_TOPIC,
  CertificatesContract,
  batchTokensOf,
  type BatchInfo,
  type TransferEventMode,
} from './contract.js';
import type { FeePolicy } from './replacement.js';
import { SubmissionStore } from './submission-store.js';
import type { Submission } from './submission.js';
import { TxSender, type ReplaceOutcome } from './tx-sender.js';
import { runWindow, Waker } from './window.js';

export type { Submission, SubmissionStatus } from './submission.js';
export type { ReplaceOutcome } from './tx-sender.js';

export interface RelayerOptions {
  pool: Pool;
  provider: JsonRpcProvider;
  /** The relayer's key (MINTER_ROLE on the contract), connected to `provider`. */
  signer: Wallet;
  contract: CertificatesContract;
  chainId: bigint;
  confirmations: number;
  store: CertificatesStore;
  /**
   * What other slices record for the certificates a confirmation just marked minted, in the
   * same transaction (voucher.minted for vouchers created while they were pending): wired by
   * the service's assembly, so neither the relayer nor the certificate store knows those slices.
   */
  afterMinted?: (tx: Queryable, certificateIds: string[]) => Promise<unknown>;
  /**
   * Events of batches recorded without a mode of their own (their enterprise chose none):
   * HALLMARK_CHAIN_TRANSFER_EVENTS (Chain.transferEvents). Default `erc2309`.
   */
  defaultTransferEvents?: TransferEventMode;
  log: Logger;
  /** How long one pass waits for a receipt before leaving the submission for the next pass. */
  receiptTimeoutMs?: number;
  /** Submissions in flight at once (signing is serialised anyway); default 8. */
  maxInFlight?: number;
  /**
   * Every mint signer's address (default: this one only). Submissions signed by an address not
   * in the list are orphans, driven by the relayer with `adoptOrphans`.
   */
  peers?: readonly string[];
  /** Drive orphans and unclaimed submissions alike (signer 1; default: without `peers`). */
  adoptOrphans?: boolean;
  /**
   * How long a pass takes in new submissions before it finishes those in flight and returns
   * (so the passes that follow it run); null: as long as there are any (default).
   */
  refillMs?: number | null;
  /** When a stuck transaction is replaced, and the fee cap (default: after 60 s, no cap). */
  feePolicy?: FeePolicy;
  /** How often a waiting pass looks for a receipt (default: the provider's polling interval). */
  pollMs?: number;
}

export type DriveOutcome = 'confirmed' | 'failed' | 'waiting';

/**
 * Gas a mint may need beyond its estimate: the estimate runs on the latest block, but with
 * several mints in flight a batch lands after others in its block, so its first token id (and
 * the contract's checkpoint every 256 ids: one more new `_runs` and `_runStartBits` slot, and a
 * fresh bitmap word for the first id) differs: up to ~65k more gas, beyond +20% of a large
 * batch's estimate. Seen as reverted mints (out of gas) with 8 in flight on 2 s blocks.
 */
const MINT_GAS_HEADROOM = 100_000n;
/** How often a pass with transactions in flight looks for submissions recorded elsewhere. */
const WINDOW_POLL_MS = 500;
/** How long a submission left waiting rests before the same pass drives it again. */
const RETRY_PAUSE_MS = 2000;

export class Relayer {
  readonly contract: CertificatesContract;
  readonly address: string;
  /** The signer's one transaction path: every relayer transaction of this process uses it. */
  readonly tx: TxSender;
  private readonly submissions: SubmissionStore;
  private readonly peers: string[];
  private readonly waker = new Waker(WINDOW_POLL_MS);

  constructor(private readonly opts: RelayerOptions) {
    this.contract = opts.contract.connect(opts.signer);
    this.address = opts.signer.address;
    this.tx = new TxSender({
      provider: opts.provider,
      signer: opts.signer,
      chainId: opts.chainId,
      log: opts.log,
      feePolicy: opts.feePolicy,
    });
    this.submissions = new SubmissionStore(opts.pool);
    this.peers = (opts.peers ?? [this.address]).map((a) => a.toLowerCase());
  }

  /** Which submissions are this signer's to drive (its own; signer 1 also orphans). */
  private mine() {
    const { peers, adoptOrphans } = this.opts;
    return { signer: this.address, peers: this.peers, adoptOrphans: adoptOrphans ?? peers === undefined };
  }

  /** A batch was recorded: a pass in progress takes it in now if its window has room. */
  wake(): void {
    this.waker.wake();
  }

  /**
   * Runs `fn` (nonce read → sign → broadcast of another transaction of this signer) under the
   * signer's mutex, so it never takes a nonce a mint is using.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.tx.exclusive(fn);
  }

  /**
   * The relayer's gauges, read at scrape time: its mint transactions not final yet by state
   * (pending: not signed; signed; sent: broadcast, not yet confirmed), the nonce gap (the
   * node's pending count minus its mined count for this signer: transactions broadcast and not
   * mined) and the signer's balance in wei (a float gauge: exact to 2^53 wei, ~0.009 ETH).
   */
  observe(): () => void {
    const { provider } = this.opts;
    const labels = { signer: this.address };
    const offs = [
      gaugeFrom(
        'hallmark_relayer_pending_transactions',
        'Relayer mint transactions not final yet, by state (pending, signed, sent)',
        ['signer', 'state'],
        async () =>
          Object.entries(await this.submissions.openCounts(this.contract.address, this.mine())).map(
            ([state, n]) => ({
              labels: { ...labels, state },
              value: n,
            }),
          ),
        { shared: true },
      ),
      gaugeFrom(
        'hallmark_relayer_nonce_gap',
        "Signer transactions broadcast but not mined (node's pending nonce minus mined nonce)",
        ['signer'],
        async () => {
          const [pending, mined] = await Promise.all([
            provider.getTransactionCount(this.address, 'pending'),
            provider.getTransactionCount(this.address, 'latest'),
          ]);
          return [{ labels, value: pending - mined }];
        },
        { shared: true },
      ),
      gaugeFrom(
        'hallmark_relayer_balance_wei',
        "Relayer signer's balance in wei",
        ['signer'],
        async () => [{ labels, value: Number(await provider.getBalance(this.address)) }],
        { shared: true },
      ),
    ];
    return () => offs.forEach((off) => off());
  }

  async submission(batchId: string): Promise<Submission> {
    const sub = await this.submissions.byBatch(batchId);
    if (!sub) throw new Error(`no chain submission for batch ${batchId}`);
    return sub;
  }

  /**
   * One pass: drives this signer's open submissions (claiming unclaimed ones) with up to
   * `maxInFlight` at once, taking in new ones as others become final, until none is left;
   * returns how many reached a final state. A submission left waiting is tried again in the
   * same pass only while others keep it running (after a pause), else in the next pass.
   */
  async processOpen(): Promise<number> {
    const { maxInFlight, refillMs } = this.opts;
    return runWindow({
      width: maxInFlight ?? 8,
      refillUntil: refillMs == null ? Infinity : Date.now() + refillMs,
      next: (limit, except) =>
        this.submissions.forSigner(this.contract.address, { ...this.mine(), limit, except }),
      drive: async (s) => (await this.driveLogged(s)) !== 'waiting',
      restMs: RETRY_PAUSE_MS,
      pause: () => this.waker.pause(),
    });
  }

  private driveLogged(s: Submission): Promise<DriveOutcome> {
    return this.drive(s).catch(async (err: unknown) => {
      this.opts.log.warn({ err, batchId: s.batchId }, 'relayer: submission not completed; will retry');
      await this.submissions.noteError(s.id, String((err as Error)?.message ?? err)).catch(() => undefined);
      return 'waiting' as const;
    });
  }

  /** Brings one submission as far as it goes: reconcile with the chain, (re)send, confirm, record. */
  async drive(sub: Submission): Promise<DriveOutcome> {
    const onChain = await this.contract.batchByKey(sub.batchKey);
    if (onChain) return this.recordFound(sub, onChain);
    if ((sub.status === 'signed' || sub.status === 'sent') && sub.rawTx && sub.txHash) {
      const known = await this.opts.provider.getTransaction(sub.txHash);
      if (!known && (await this.tx.rebroadcast(sub, this.submissions)) === 'nonce-taken') {
        // The nonce was used by another transaction, so this one can never be mined; the batch
        // key is not consumed (checked just before), so signing again is safe.
        this.opts.log.info({ batchId: sub.batchId, nonce: sub.nonce }, 'relayer: nonce taken, signing again');
        await this.submit(sub);
      }
    } else {
      await this.submit(sub);
    }
    return this.awaitAndRecord(sub);
  }

  /**
   * Signs the batch's mintBatch with the next nonce, persists it (`signed`) and, unless told
   * not to, broadcasts it (`sent`). `broadcast: false` stops where a crash between persisting
   * and sending would (tests).
   */
  async submit(
    sub: Submission,
    { broadcast = true }: { broadcast?: boolean } = {},
  ): Promise<{ txHash: string }> {
    const data = CertificatesContract.encodeMintBatch({
      to: sub.holderAddress,
      quantity: sub.quantity,
      merkleRoot: sub.merkleRoot,
      batchKey: sub.batchKey,
      transferEvents: sub.transferEvents ?? this.opts.defaultTransferEvents ?? 'erc2309',
    });
    const to = this.contract.address;
    const gas = await this.opts.provider.estimateGas({ from: this.address, to, data });
    const txHash = await this.tx.sign(
      sub,
      this.submissions,
      { to, data, gasLimit: (gas * 12n) / 10n + MINT_GAS_HEADROOM },
      { broadcast },
    );
    return { txHash };
  }

  /**
   * Replaces the submission's pending transaction with +20% fees (TxSender.replace): the same
   * nonce, gas and data, persisted before it is broadcast. `broadcast: false` stops where a
   * crash between persisting and sending would (tests).
   */
  replace(sub: Submission, { broadcast = true }: { broadcast?: boolean } = {}): Promise<ReplaceOutcome> {
    return this.tx.replace(sub, this.submissions, { batchId: sub.batchId }, { broadcast });
  }

  private async awaitAndRecord(sub: Submission): Promise<DriveOutcome> {
    const receipt = await this.tx.waitMined(sub, this.submissions, {
      confirmations: this.opts.confirmations,
      timeoutMs: this.opts.receiptTimeoutMs ?? 120_000,
      pollMs: this.opts.pollMs,
      label: { batchId: sub.batchId },
    });
    if (!receipt) return 'waiting';
    if (receipt.status === 1) {
      // the batch's tokens from the receipt: BatchMinted and the mint events of either mode
      const tokens = batchTokensOf(receipt, this.contract.address, sub.batchKey);
      if (tokens) return this.record(sub, tokens.firstTokenId, receipt);
    }
    // Reverted (or mined without our event): the key may have been consumed by an earlier
    // transaction of this same batch; otherwise the batch failed.
    const onChain = await this.contract.batchByKey(sub.batchKey);
    if (onChain) return this.recordFound(sub, onChain);
    await transaction(this.opts.pool, async (tx) => {
      await this.submissions.fail(tx, sub.id, `transaction ${receipt.hash} reverted`, receipt.blockNumber);
      await this.opts.store.failBatch(tx, sub.batchId);
    });
    this.opts.log.error({ batchId: sub.batchId, tx: receipt.hash }, 'relayer: mintBatch reverted');
    return 'failed';
  }

  /** The batch is on chain: find the transaction that minted it, wait for depth, record. */
  private async recordFound(sub: Submission, info: BatchInfo): Promise<DriveOutcome> {
    let txHash: string | null = null;
    const receipt = await this.tx.findMined(sub);
    if (receipt?.status === 1 && batchTokensOf(receipt, this.contract.address, sub.batchKey)) {
      txHash = receipt.hash;
    }
    if (!txHash) {
      // Not by a transaction we persisted (e.g. a signing lost in a crash before it was
      // persisted): the BatchMinted log indexed by the batch key names it.
      const [log] = await this.opts.provider.getLogs({
        address: this.contract.address,
        topics: [BATCH_MINTED_TOPIC, sub.batchKey],
        fromBlock: 0,
        toBlock: 'latest',
      });
      if (!log) return 'waiting';
      txHash = log.transactionHash;
    }
    const confirmed = await this.opts.provider.waitForTransaction(
      txHash,
      this.opts.confirmations,
      this.opts.receiptTimeoutMs ?? 120_000,
    );
    if (!confirmed) return 'waiting';
    const tokens = batchTokensOf(confirmed, this.contract.address, sub.batchKey);
    if (!tokens || tokens.firstTokenId !== info.firstTokenId) {
      throw new Error(`transaction ${txHash} does not mint batch ${sub.batchId} as batchByKey reports it`);
    }
    return this.record(sub, tokens.firstTokenId, confirmed);
  }

  private async record(
    sub: Submission,
    firstTokenId: bigint,
    receipt: TransactionReceipt,
  ): Promise<DriveOutcome> {
    await transaction(this.opts.pool, async (tx: PoolClient) => {
      const fresh = await this.submissions.confirm(tx, sub.id, {
        firstTokenId,
        txHash: receipt.hash,
        blockNumber: receipt.blockNumber,
      });
      if (!fresh) return;
      const minted = await this.opts.store.completeBatch(tx, sub.batchId, {
        firstTokenId,
        transactionHash: receipt.hash,
        blockNumber: receipt.blockNumber,
        signer: this.address,
      });
      if (minted.length > 0) await this.opts.afterMinted?.(tx, minted);
    });
    if (sub.txHash && sub.txHash !== receipt.hash) {
      sub.replacedHashes = [...sub.replacedHashes.filter((h) => h !== receipt.hash), sub.txHash];
    }
    Object.assign(sub, { status: 'confirmed', txHash: receipt.hash });
    this.opts.log.info(
      {
        batchId: sub.batchId,
        firstTokenId: firstTokenId.toString(),
        tx: receipt.hash,
        block: receipt.blockNumber,
      },
      'relayer: batch minted',
    );
    return 'confirmed';
  }
}
