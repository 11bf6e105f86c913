// The relayer: turns chain_submissions rows into HallmarkCertificates.mintBatch transactions,
// exactly once per batch, across crashes and restarts.
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
//                      broadcast and the replaced hash kept in `replaced_hashes`
//                      (./replacement.ts). One nonce: at most one of the hashes can be mined;
//                      the wait watches all of them and the mined one is recorded.
// It then waits for HALLMARK_CHAIN_CONFIRMATIONS confirmations and records the batch's first
// token id, transaction hash and block (`confirmed`) in the same database transaction that
// marks the certificates minted. The contract refuses a batch key twice, so even a bug here
// cannot mint a batch twice.
//
// Nonces: the node's pending transaction count, read under an in-process mutex that is held
// from reading the nonce until the node accepted the broadcast, so the next read already counts
// it. Only one process signs for a signer at a time (MintWorker holds a PostgreSQL advisory lock
// per signer address). No nonce counter is persisted on its own: a persisted counter drifts
// from the chain when a signed transaction never reaches it and then blocks every later nonce;
// what is persisted is each submission's nonce and signed bytes, which reconciliation needs.
import type { Logger, Pool, PoolClient } from '@hallmark/kit';
import { transaction } from '@hallmark/kit';
import { Transaction, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import type { CertificatesStore } from '../store.js';
import { BATCH_MINTED_TOPIC, CertificatesContract, batchTokensOf, type BatchInfo } from './contract.js';
import {
  bumpedFees,
  DEFAULT_FEE_POLICY,
  feesOf,
  findMined,
  initialFees,
  isAlreadyKnown,
  isNonceTooLow,
  isUnderpriced,
  signReplacement,
  waitMined,
  type FeePolicy,
} from './replacement.js';
import {
  hashesOf,
  SUBMISSION_SELECT,
  submissionFromRow,
  type Submission,
  type SubmissionRow,
} from './submission.js';

export type { Submission, SubmissionStatus } from './submission.js';

/** Serialises async sections (one signer's nonce → sign → broadcast). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export interface RelayerOptions {
  pool: Pool;
  provider: JsonRpcProvider;
  /** The relayer's key (MINTER_ROLE on the contract), connected to `provider`. */
  signer: Wallet;
  contract: CertificatesContract;
  chainId: bigint;
  confirmations: number;
  store: CertificatesStore;
  log: Logger;
  /** How long one pass waits for a receipt before leaving the submission for the next pass. */
  receiptTimeoutMs?: number;
  /** Submissions driven at once in one pass (signing is serialised anyway). */
  concurrency?: number;
  /** When a stuck transaction is replaced, and the fee cap (default: after 60 s, no cap). */
  feePolicy?: FeePolicy;
  /** How often a waiting pass looks for a receipt (default: the provider's polling interval). */
  pollMs?: number;
}

/** What a replacement attempt did. */
export type ReplaceOutcome = 'replaced' | 'capped' | 'lost' | 'underpriced';

export type DriveOutcome = 'confirmed' | 'failed' | 'waiting';

export class Relayer {
  private readonly mutex = new Mutex();
  readonly contract: CertificatesContract;
  readonly address: string;

  private readonly fees: FeePolicy;

  constructor(private readonly opts: RelayerOptions) {
    this.contract = opts.contract.connect(opts.signer);
    this.address = opts.signer.address;
    this.fees = opts.feePolicy ?? DEFAULT_FEE_POLICY;
  }

  /**
   * Runs `fn` (nonce read → sign → broadcast of another transaction of this signer, e.g. the
   * allowlist worker's) under the signer's mutex, so it never takes a nonce a mint is using.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(fn);
  }

  /** Submissions not final yet on this relayer's contract, oldest first. */
  async openSubmissions(limit = 100): Promise<Submission[]> {
    const { rows } = await this.opts.pool.query<SubmissionRow>(
      `${SUBMISSION_SELECT} WHERE s.status IN ('pending', 'signed', 'sent') AND lower(s.contract_address) = lower($1)
       ORDER BY s.id LIMIT $2`,
      [this.contract.address, limit],
    );
    return rows.map(submissionFromRow);
  }

  async submission(batchId: string): Promise<Submission> {
    const { rows } = await this.opts.pool.query<SubmissionRow>(`${SUBMISSION_SELECT} WHERE s.batch_id = $1`, [
      batchId,
    ]);
    if (!rows[0]) throw new Error(`no chain submission for batch ${batchId}`);
    return submissionFromRow(rows[0]);
  }

  /** One pass over the open submissions; returns how many reached a final state. */
  async processOpen(): Promise<number> {
    const open = await this.openSubmissions();
    const width = this.opts.concurrency ?? 8;
    let done = 0;
    for (let i = 0; i < open.length; i += width) {
      const outcomes = await Promise.all(
        open.slice(i, i + width).map((s) =>
          this.drive(s).catch((err: unknown) => {
            this.opts.log.warn({ err, batchId: s.batchId }, 'relayer: submission not completed; will retry');
            return this.noteError(s, err).then(() => 'waiting' as const);
          }),
        ),
      );
      done += outcomes.filter((o) => o !== 'waiting').length;
    }
    return done;
  }

  /** Brings one submission as far as it goes: reconcile with the chain, (re)send, confirm, record. */
  async drive(sub: Submission): Promise<DriveOutcome> {
    const onChain = await this.contract.batchByKey(sub.batchKey);
    if (onChain) return this.recordFound(sub, onChain);
    if ((sub.status === 'signed' || sub.status === 'sent') && sub.rawTx && sub.txHash) {
      const known = await this.opts.provider.getTransaction(sub.txHash);
      if (!known) await this.rebroadcast(sub);
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
  submit(sub: Submission, { broadcast = true }: { broadcast?: boolean } = {}): Promise<{ txHash: string }> {
    return this.mutex.run(async () => {
      const { provider, signer, chainId } = this.opts;
      const data = CertificatesContract.encodeMintBatch({
        to: sub.holderAddress,
        quantity: sub.quantity,
        merkleRoot: sub.merkleRoot,
        batchKey: sub.batchKey,
      });
      const [nonce, fees, gas] = await Promise.all([
        provider.getTransactionCount(signer.address, 'pending'),
        provider.getFeeData(),
        provider.estimateGas({ from: signer.address, to: this.contract.address, data }),
      ]);
      const raw = await signer.signTransaction({
        type: 2,
        chainId,
        to: this.contract.address,
        data,
        nonce,
        gasLimit: (gas * 12n) / 10n,
        ...initialFees(fees, this.fees),
      });
      const txHash = Transaction.from(raw).hash!;
      // A re-signing (the old nonce went elsewhere) keeps the old hash with the others.
      await this.opts.pool.query(
        `UPDATE chain_submissions SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
           replaced_hashes = CASE WHEN tx_hash IS NULL THEN replaced_hashes
                                  ELSE array_append(replaced_hashes, tx_hash) END,
           sent_at = NULL, attempts = attempts + 1, last_error = NULL
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [sub.id, signer.address, nonce, raw, txHash],
      );
      const replacedHashes = sub.txHash ? [...sub.replacedHashes, sub.txHash] : sub.replacedHashes;
      Object.assign(sub, {
        status: 'signed',
        signer: signer.address,
        nonce,
        rawTx: raw,
        txHash,
        replacedHashes,
        sentAgeMs: null,
      });
      if (broadcast) {
        await provider.broadcastTransaction(raw);
        await this.markSent(sub);
      }
      return { txHash };
    });
  }

  /** Sends the persisted signed bytes again; signs anew when their nonce went to another transaction. */
  private rebroadcast(sub: Submission): Promise<string> {
    return this.mutex
      .run(async () => {
        try {
          await this.opts.provider.broadcastTransaction(sub.rawTx!);
        } catch (err) {
          if (isAlreadyKnown(err)) return sub.txHash!;
          if (isNonceTooLow(err)) return null;
          // Another transaction with this nonce is pending (only one of all can be mined):
          // wait on every hash; the fee bump outbids it in time.
          if (isUnderpriced(err)) return sub.txHash!;
          throw err;
        }
        await this.markSent(sub);
        return sub.txHash!;
      })
      .then(async (hash) => {
        if (hash) return hash;
        // The nonce was used by another transaction, so this one can never be mined; the batch
        // key is not consumed (checked by drive just before), so signing again is safe.
        this.opts.log.info({ batchId: sub.batchId, nonce: sub.nonce }, 'relayer: nonce taken, signing again');
        return (await this.submit(sub)).txHash;
      });
  }

  private async markSent(sub: Submission): Promise<void> {
    await this.opts.pool.query(
      `UPDATE chain_submissions SET status = 'sent', sent_at = COALESCE(sent_at, now())
       WHERE id = $1 AND status IN ('signed', 'sent')`,
      [sub.id],
    );
    sub.status = 'sent';
    sub.sentAgeMs ??= 0;
  }

  /**
   * Replaces the submission's pending transaction: the same nonce, gas and data with +20%
   * fees (capped), persisted (`signed`, the old hash kept) before it is broadcast (`sent`).
   * `lost`: the nonce is already mined (by an earlier hash: the wait finds it);
   * `underpriced`: the node keeps another transaction of this nonce for now; `capped`: the
   * fee cap leaves no room, nothing signed. `broadcast: false` stops where a crash between
   * persisting and sending would (tests).
   */
  async replace(
    sub: Submission,
    { broadcast = true }: { broadcast?: boolean } = {},
  ): Promise<ReplaceOutcome> {
    const { provider, signer, pool, log } = this.opts;
    const prev = sub.txHash!;
    const next = bumpedFees(feesOf(sub.rawTx!), await provider.getFeeData(), this.fees);
    if (!next) {
      log.warn({ batchId: sub.batchId, tx: prev }, 'relayer: stuck transaction already at the fee cap');
      return 'capped';
    }
    const { raw, hash } = await signReplacement(signer, sub.rawTx!, next);
    const { rowCount } = await pool.query(
      `UPDATE chain_submissions SET status = 'signed', raw_tx = $3, tx_hash = $4,
         replaced_hashes = array_append(replaced_hashes, tx_hash), sent_at = NULL, attempts = attempts + 1
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'sent')`,
      [sub.id, prev, raw, hash],
    );
    if (!rowCount) throw new Error(`submission of batch ${sub.batchId} changed while replacing ${prev}`);
    Object.assign(sub, {
      status: 'signed',
      rawTx: raw,
      txHash: hash,
      replacedHashes: [...sub.replacedHashes, prev],
      sentAgeMs: null,
    });
    log.info(
      { batchId: sub.batchId, nonce: sub.nonce, replaced: prev, tx: hash, maxFeePerGas: next.maxFeePerGas },
      'relayer: replacing a stuck transaction with higher fees',
    );
    if (!broadcast) return 'replaced';
    try {
      await provider.broadcastTransaction(raw);
    } catch (err) {
      if (isNonceTooLow(err)) {
        log.info({ batchId: sub.batchId, tx: hash }, 'relayer: replacement lost: the nonce is already mined');
        return 'lost';
      }
      if (isUnderpriced(err)) return 'underpriced';
      if (!isAlreadyKnown(err)) throw err;
    }
    await this.markSent(sub);
    return 'replaced';
  }

  /** Waits for any of the submission's hashes to be mined, replacing it when it is stuck. */
  private waitAny(sub: Submission): Promise<TransactionReceipt | null> {
    return waitMined({
      provider: this.opts.provider,
      hashes: () => hashesOf(sub),
      confirmations: this.opts.confirmations,
      timeoutMs: this.opts.receiptTimeoutMs ?? 120_000,
      pollMs: this.opts.pollMs ?? this.opts.provider.pollingInterval,
      replaceInMs: this.fees.replaceAfterMs - (sub.sentAgeMs ?? 0),
      replaceAfterMs: this.fees.replaceAfterMs,
      replace: () => this.replace(sub),
    });
  }

  private async awaitAndRecord(sub: Submission): Promise<DriveOutcome> {
    const receipt = await this.waitAny(sub);
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
      await tx.query(
        `UPDATE chain_submissions SET status = 'failed', last_error = $2, block_number = $3
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [sub.id, `transaction ${receipt.hash} reverted`, receipt.blockNumber],
      );
      await this.opts.store.failBatch(tx, sub.batchId);
    });
    this.opts.log.error({ batchId: sub.batchId, tx: receipt.hash }, 'relayer: mintBatch reverted');
    return 'failed';
  }

  /** The batch is on chain: find the transaction that minted it, wait for depth, record. */
  private async recordFound(sub: Submission, info: BatchInfo): Promise<DriveOutcome> {
    let txHash: string | null = null;
    const receipt = await findMined(this.opts.provider, hashesOf(sub));
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
    const confirmed = await this.waitConfirmed(txHash);
    if (!confirmed) return 'waiting';
    const tokens = batchTokensOf(confirmed, this.contract.address, sub.batchKey);
    if (!tokens || tokens.firstTokenId !== info.firstTokenId) {
      throw new Error(`transaction ${txHash} does not mint batch ${sub.batchId} as batchByKey reports it`);
    }
    return this.record(sub, tokens.firstTokenId, confirmed);
  }

  private async waitConfirmed(hash: string): Promise<TransactionReceipt | null> {
    return this.opts.provider.waitForTransaction(
      hash,
      this.opts.confirmations,
      this.opts.receiptTimeoutMs ?? 120_000,
    );
  }

  private async record(
    sub: Submission,
    firstTokenId: bigint,
    receipt: TransactionReceipt,
  ): Promise<DriveOutcome> {
    await transaction(this.opts.pool, async (tx: PoolClient) => {
      // tx_hash becomes the mined hash; when that was an earlier one, the current one joins
      // the replaced hashes in its place.
      const { rowCount } = await tx.query(
        `UPDATE chain_submissions SET status = 'confirmed', first_token_id = $2, tx_hash = $3, block_number = $4,
           replaced_hashes = CASE WHEN tx_hash IS NULL OR tx_hash = $3 THEN replaced_hashes
                                  ELSE array_append(array_remove(replaced_hashes, $3), tx_hash) END,
           confirmed_at = now(), last_error = NULL
         WHERE id = $1 AND status <> 'confirmed'`,
        [sub.id, firstTokenId.toString(), receipt.hash, receipt.blockNumber],
      );
      if (!rowCount) return;
      await this.opts.store.completeBatch(tx, sub.batchId, {
        firstTokenId,
        transactionHash: receipt.hash,
        blockNumber: receipt.blockNumber,
        signer: this.address,
      });
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

  private async noteError(sub: Submission, err: unknown): Promise<void> {
    await this.opts.pool
      .query('UPDATE chain_submissions SET last_error = $2 WHERE id = $1', [
        sub.id,
        String((err as Error)?.message ?? err).slice(0, 1000),
      ])
      .catch(() => undefined);
  }
}
