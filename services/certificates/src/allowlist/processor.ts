// The allowlist writer's pass (run by the mint worker): the retry job re-queues failed entries
// (at most `maxRetries` times each, `retryDelayMs` after their last attempt), then pending
// entries are added to the contract in batches of `batchSize` addresses, one addToAllowlist
// transaction per batch.
// Before sending, the chain is asked (`isAllowlisted`): addresses it already has succeed
// without a transaction, which also reconciles a crash between sending and recording. A batch
// whose transaction reverts, fails to send or is not confirmed in time fails as a whole
// (allowlistError = the contract's error name or the message).
// The transaction takes the relayer's one path (../chain/tx-sender.ts: the signer's mutex, fee
// bumps of a stuck transaction, the wait) without a persisted record: addToAllowlist is
// idempotent and every batch first asks the chain, so a restart simply sends what is missing.
import type { Logger } from '@hallmark/kit';
import { CertificatesContract, certificatesInterface } from '../chain/contract.js';
import type { TxSender } from '../chain/tx-sender.js';
import type { AllowlistStore } from './store.js';

export interface AllowlistProcessorOptions {
  store: AllowlistStore;
  /** Reads `isAllowlisted`. */
  contract: CertificatesContract;
  /** The transaction path of the key that sends addToAllowlist (the relayer's in the service). */
  tx: TxSender;
  confirmations: number;
  batchSize: number;
  maxRetries: number;
  retryDelayMs: number;
  receiptTimeoutMs?: number;
  /** Batches sent per pass at most (the next pass continues). */
  maxBatchesPerPass?: number;
  log: Logger;
}

export interface AllowlistPassResult {
  requeued: number;
  succeeded: number;
  failed: number;
}

export class AllowlistProcessor {
  constructor(private readonly opts: AllowlistProcessorOptions) {}

  async runOnce(): Promise<AllowlistPassResult> {
    const o = this.opts;
    const requeued = (await o.store.requeueFailed(o.maxRetries, o.retryDelayMs, o.batchSize)).length;
    const result = { requeued, succeeded: 0, failed: 0 };
    for (let i = 0; i < (o.maxBatchesPerPass ?? 10); i++) {
      const batch = await o.store.pending(o.batchSize);
      if (batch.length === 0) break;
      const r = await this.processBatch(batch.map((e) => e.address));
      result.succeeded += r.succeeded;
      result.failed += r.failed;
    }
    return result;
  }

  private async processBatch(addresses: string[]): Promise<{ succeeded: number; failed: number }> {
    const { store, contract } = this.opts;
    const listed = await Promise.all(addresses.map((a) => contract.isAllowlisted(a)));
    const already = addresses.filter((_, i) => listed[i]);
    const toSend = addresses.filter((_, i) => !listed[i]);
    await store.markSuccess(already, { transactionHash: null, blockNumber: null });
    if (toSend.length === 0) return { succeeded: already.length, failed: 0 };
    try {
      const receipt = await this.send(toSend);
      if (!receipt) throw new Error('transaction not confirmed in time');
      if (receipt.status !== 1) throw new Error(`transaction ${receipt.hash} reverted`);
      await store.markSuccess(toSend, { transactionHash: receipt.hash, blockNumber: receipt.blockNumber });
      return { succeeded: addresses.length, failed: 0 };
    } catch (err) {
      const reason = CertificatesContract.revertName(err) ?? (err as Error).message ?? String(err);
      this.opts.log.warn(
        { err, addresses: toSend.length },
        'allowlist: batch failed; the retry job will retry',
      );
      await store.markFailed(toSend, reason);
      return { succeeded: already.length, failed: toSend.length };
    }
  }

  /** addToAllowlist(addresses): estimated (a refusal throws its revert), signed, sent, awaited. */
  private async send(addresses: string[]) {
    const { tx, contract } = this.opts;
    const data = certificatesInterface.encodeFunctionData('addToAllowlist', [addresses]);
    const gas = await tx.provider.estimateGas({ from: tx.address, to: contract.address, data });
    return tx.send(
      { to: contract.address, data, gasLimit: (gas * 12n) / 10n },
      {
        confirmations: this.opts.confirmations,
        timeoutMs: this.opts.receiptTimeoutMs ?? 60_000,
        label: { allowlist: addresses.length },
      },
    );
  }
}
