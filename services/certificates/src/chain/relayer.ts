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
//                      this one can never be mined): sign again with a fresh nonce.
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
import { BATCH_MINTED_TOPIC, CertificatesContract, type BatchInfo } from './contract.js';

export type SubmissionStatus = 'pending' | 'signed' | 'sent' | 'confirmed' | 'failed';

export interface Submission {
  id: string;
  batchId: string;
  batchKey: string;
  contractAddress: string;
  signer: string | null;
  nonce: number | null;
  rawTx: string | null;
  txHash: string | null;
  status: SubmissionStatus;
  attempts: number;
  holderAddress: string;
  quantity: number;
  merkleRoot: string;
}

interface SubmissionRow {
  id: string;
  batch_id: string;
  batch_key: string;
  contract_address: string;
  signer: string | null;
  nonce: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  status: SubmissionStatus;
  attempts: number;
  holder_address: string;
  quantity: number;
  merkle_root: string;
}

const SUBMISSION_SELECT = `SELECT s.*, b.holder_address, b.quantity, b.merkle_root
  FROM chain_submissions s JOIN certificate_batches b ON b.id = s.batch_id`;

function fromRow(r: SubmissionRow): Submission {
  return {
    id: r.id,
    batchId: r.batch_id,
    batchKey: r.batch_key,
    contractAddress: r.contract_address,
    signer: r.signer,
    nonce: r.nonce === null ? null : Number(r.nonce),
    rawTx: r.raw_tx,
    txHash: r.tx_hash,
    status: r.status,
    attempts: r.attempts,
    holderAddress: r.holder_address,
    quantity: r.quantity,
    merkleRoot: r.merkle_root,
  };
}

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
}

export type DriveOutcome = 'confirmed' | 'failed' | 'waiting';

export class Relayer {
  private readonly mutex = new Mutex();
  readonly contract: CertificatesContract;
  readonly address: string;

  constructor(private readonly opts: RelayerOptions) {
    this.contract = opts.contract.connect(opts.signer);
    this.address = opts.signer.address;
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
    return rows.map(fromRow);
  }

  async submission(batchId: string): Promise<Submission> {
    const { rows } = await this.opts.pool.query<SubmissionRow>(`${SUBMISSION_SELECT} WHERE s.batch_id = $1`, [
      batchId,
    ]);
    if (!rows[0]) throw new Error(`no chain submission for batch ${batchId}`);
    return fromRow(rows[0]);
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
    let hash = sub.txHash;
    if ((sub.status === 'signed' || sub.status === 'sent') && sub.rawTx && hash) {
      const known = await this.opts.provider.getTransaction(hash);
      if (!known) hash = await this.rebroadcast(sub);
    } else {
      hash = (await this.submit(sub)).txHash;
    }
    return this.awaitAndRecord(sub, hash!);
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
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const txHash = Transaction.from(raw).hash!;
      await this.opts.pool.query(
        `UPDATE chain_submissions SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
           attempts = attempts + 1, last_error = NULL
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [sub.id, signer.address, nonce, raw, txHash],
      );
      Object.assign(sub, { status: 'signed', signer: signer.address, nonce, rawTx: raw, txHash });
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
      `UPDATE chain_submissions SET status = 'sent', sent_at = now() WHERE id = $1 AND status IN ('signed', 'sent')`,
      [sub.id],
    );
    sub.status = 'sent';
  }

  private async awaitAndRecord(sub: Submission, hash: string): Promise<DriveOutcome> {
    const receipt = await this.waitConfirmed(hash);
    if (!receipt) return 'waiting';
    if (receipt.status === 1) {
      const event = this.contract.parseBatchMinted(receipt).find((e) => e.batchKey === sub.batchKey);
      if (event) return this.record(sub, event.firstTokenId, receipt);
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
    if (sub.txHash) {
      const receipt = await this.opts.provider.getTransactionReceipt(sub.txHash);
      if (
        receipt?.status === 1 &&
        this.contract.parseBatchMinted(receipt).some((e) => e.batchKey === sub.batchKey)
      ) {
        txHash = receipt.hash;
      }
    }
    if (!txHash) {
      // Not by the transaction we persisted (e.g. an earlier signing of this batch): the
      // BatchMinted log indexed by the batch key names it.
      const [log] = await this.opts.provider.getLogs({
        address: this.contract.address,
        topics: [BATCH_MINTED_TOPIC, sub.batchKey],
        fromBlock: 0,
        toBlock: 'latest',
      });
      if (!log) return 'waiting';
      txHash = log.transactionHash;
    }
    const receipt = await this.waitConfirmed(txHash);
    if (!receipt) return 'waiting';
    return this.record(sub, info.firstTokenId, receipt);
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
      const { rowCount } = await tx.query(
        `UPDATE chain_submissions SET status = 'confirmed', first_token_id = $2, tx_hash = $3, block_number = $4,
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
    sub.status = 'confirmed';
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

function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string; error?: { message?: string }; info?: unknown };
  return `${e?.code ?? ''} ${e?.message ?? ''} ${e?.error?.message ?? ''} ${JSON.stringify(e?.info ?? '')}`;
}

function isNonceTooLow(err: unknown): boolean {
  return (err as { code?: string })?.code === 'NONCE_EXPIRED' || /nonce too low/i.test(errorText(err));
}

function isAlreadyKnown(err: unknown): boolean {
  return /already known|known transaction|already imported/i.test(errorText(err));
}
