// The sending side of transfers: signs the holder's TransferPermit and the relayer's
// transferWithPermit, persists them before the broadcast, waits, replaces a stuck transaction
// with higher fees, and records the outcome. Run by the mint worker's pass (only the replica
// holding the relayer's advisory lock), under the relayer's signer mutex for every nonce read.
//
// A transfer's transaction(s) share one relayer nonce: the first signing and every fee bump
// (../chain/replacement.ts; earlier hashes kept in `replaced_hashes`), so at most one of them
// is mined. Each drive first asks the chain whether any of them was mined (after a restart the
// current one may be a replacement that lost), and only then (re)sends: a known transaction is
// awaited, an unknown one re-broadcast as the same bytes, one whose nonce went to another
// transaction signed again (the token's permit nonce makes a signature usable once, so the
// token can never move twice for one transfer).
import { recordEvents, transaction, type Logger, type Pool } from '@hallmark/kit';
import { getAddress, Transaction, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import {
  certificatesInterface,
  CertificatesContract,
  permitDomain,
  signTransferPermit,
} from '../chain/contract.js';
import type { Relayer } from '../chain/relayer.js';
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
} from '../chain/replacement.js';
import { certificateEventObject, certificateFromRow, EVENT_SOURCE, type CertificateRow } from '../store.js';
import type { WalletStore } from '../wallets/store.js';
import type { TransferRow } from './service.js';

/** Lifetime of a TransferPermit signature. */
const PERMIT_TTL_SECONDS = 3600;

/** An open transfer as the sender reads it: with the age of its current broadcast. */
export type SendingRow = TransferRow & { sent_age_ms: number | null };

export interface TransferChain {
  relayer: Relayer;
  provider: JsonRpcProvider;
  signer: Wallet;
  chainId: bigint;
  confirmations: number;
}

export interface TransferSenderOptions {
  pool: Pool;
  wallets: WalletStore;
  chain: () => TransferChain | null;
  log: Logger;
  /** How long one sending pass waits for a receipt. */
  receiptTimeoutMs?: number;
  /** When a stuck transaction is replaced, and the fee cap (default: after 60 s, no cap). */
  feePolicy?: FeePolicy;
  /** How often a waiting pass looks for a receipt (default: the provider's polling interval). */
  pollMs?: number;
}

const hashesOf = (row: TransferRow): string[] => [
  ...(row.tx_hash ? [row.tx_hash] : []),
  ...(row.replaced_hashes ?? []).filter((h) => h !== row.tx_hash),
];

export class TransferSender {
  private readonly fees: FeePolicy;

  constructor(private readonly opts: TransferSenderOptions) {
    this.fees = opts.feePolicy ?? DEFAULT_FEE_POLICY;
  }

  /** The open transfers, oldest first. */
  async open(limit: number): Promise<SendingRow[]> {
    const { rows } = await this.opts.pool.query<SendingRow>(
      `SELECT *, (extract(epoch FROM now() - sent_at) * 1000)::float8 AS sent_age_ms
       FROM certificate_transfers WHERE status IN ('pending', 'signed', 'sent') ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows;
  }

  /** Brings one transfer as far as it goes; true when it became final. */
  async drive(row: SendingRow): Promise<boolean> {
    const chain = this.opts.chain()!;
    if (!(await findMined(chain.provider, hashesOf(row)))) {
      if ((row.status === 'signed' || row.status === 'sent') && row.raw_tx && row.tx_hash) {
        if (!(await chain.provider.getTransaction(row.tx_hash)) && !(await this.rebroadcast(row)))
          return true;
      } else if (!(await this.send(row))) {
        return true; // refused before sending: failed
      }
    }
    const receipt = await this.waitAny(row, chain);
    if (!receipt) return false;
    if (receipt.status !== 1) {
      await this.fail(row.id, `transaction ${receipt.hash} reverted`, receipt.blockNumber);
      return true;
    }
    await this.confirm(row, receipt.hash, receipt.blockNumber, chain.relayer.address);
    return true;
  }

  /**
   * Signs the holder's TransferPermit and the relayer's transaction under the signer's mutex,
   * persists them (`signed`), broadcasts (`sent`). False when the chain refuses the transfer
   * (e.g. the wallet no longer holds the token): the transfer is marked failed.
   */
  send(row: SendingRow, { broadcast = true }: { broadcast?: boolean } = {}): Promise<boolean> {
    const chain = this.opts.chain()!;
    const contract = chain.relayer.contract;
    return chain.relayer.exclusive(async () => {
      const owner = getAddress(await contract.ownerOf(row.token_id));
      if (owner !== getAddress(row.from_address)) {
        await this.fail(row.id, `the token is held by ${owner}, not by ${row.from_address}`, null);
        return false;
      }
      const holder = await this.opts.wallets.signer(row.from_address);
      const deadline = BigInt(Math.floor(Date.now() / 1000) + PERMIT_TTL_SECONDS);
      const signature = await signTransferPermit(holder, permitDomain(chain.chainId, contract.address), {
        to: row.to_address,
        tokenId: row.token_id,
        nonce: await contract.nonces(row.token_id),
        deadline,
      });
      const data = certificatesInterface.encodeFunctionData('transferWithPermit', [
        row.to_address,
        row.token_id,
        deadline,
        signature,
      ]);
      const { provider, signer } = chain;
      let gas: bigint;
      try {
        gas = await provider.estimateGas({ from: signer.address, to: contract.address, data });
      } catch (err) {
        const reason = CertificatesContract.revertName(err);
        if (!reason) throw err;
        await this.fail(row.id, `refused by the contract: ${reason}`, null);
        return false;
      }
      const [nonce, fees] = await Promise.all([
        provider.getTransactionCount(signer.address, 'pending'),
        provider.getFeeData(),
      ]);
      const raw = await signer.signTransaction({
        type: 2,
        chainId: chain.chainId,
        to: contract.address,
        data,
        nonce,
        gasLimit: (gas * 12n) / 10n,
        ...initialFees(fees, this.fees),
      });
      const txHash = Transaction.from(raw).hash!;
      // A re-signing (the old nonce went elsewhere) keeps the old hash with the others.
      await this.opts.pool.query(
        `UPDATE certificate_transfers SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
           replaced_hashes = CASE WHEN tx_hash IS NULL THEN replaced_hashes
                                  ELSE array_append(replaced_hashes, tx_hash) END,
           sent_at = NULL, last_error = NULL, updated_at = now()
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [row.id, signer.address, nonce, raw, txHash],
      );
      Object.assign(row, {
        status: 'signed',
        nonce: String(nonce),
        raw_tx: raw,
        tx_hash: txHash,
        replaced_hashes: row.tx_hash ? [...row.replaced_hashes, row.tx_hash] : row.replaced_hashes,
        sent_age_ms: null,
      });
      if (broadcast) {
        await provider.broadcastTransaction(raw);
        await this.markSent(row);
      }
      return true;
    });
  }

  /**
   * Sends the persisted bytes again; signs anew when their nonce went to another transaction.
   * False when the transfer failed instead.
   */
  private async rebroadcast(row: SendingRow): Promise<boolean> {
    const chain = this.opts.chain()!;
    const taken = await chain.relayer.exclusive(async () => {
      try {
        await chain.provider.broadcastTransaction(row.raw_tx!);
      } catch (err) {
        if (isNonceTooLow(err)) return true;
        // Already there, or another transaction of this nonce is pending: wait on every hash.
        if (isAlreadyKnown(err) || isUnderpriced(err)) return false;
        throw err;
      }
      await this.markSent(row);
      return false;
    });
    if (!taken) return true;
    // No hash of ours was mined (checked by drive just before): the nonce went elsewhere.
    this.opts.log.info({ transfer: row.id }, 'transfers: nonce taken, signing again');
    return this.send(row);
  }

  /**
   * Replaces the transfer's pending transaction with +20% fees (capped), same nonce, gas and
   * data (the permit inside stays valid: its token nonce has not moved), persisted before the
   * broadcast. As Relayer.replace; `broadcast: false` stops where a crash would (tests).
   */
  async replace(
    row: SendingRow,
    { broadcast = true }: { broadcast?: boolean } = {},
  ): Promise<'replaced' | 'capped' | 'lost' | 'underpriced'> {
    const { provider, signer } = this.opts.chain()!;
    const { pool, log } = this.opts;
    const prev = row.tx_hash!;
    const next = bumpedFees(feesOf(row.raw_tx!), await provider.getFeeData(), this.fees);
    if (!next) {
      log.warn({ transfer: row.id, tx: prev }, 'transfers: stuck transaction already at the fee cap');
      return 'capped';
    }
    const { raw, hash } = await signReplacement(signer, row.raw_tx!, next);
    const { rowCount } = await pool.query(
      `UPDATE certificate_transfers SET status = 'signed', raw_tx = $3, tx_hash = $4,
         replaced_hashes = array_append(replaced_hashes, tx_hash), sent_at = NULL, updated_at = now()
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'sent')`,
      [row.id, prev, raw, hash],
    );
    if (!rowCount) throw new Error(`transfer ${row.id} changed while replacing ${prev}`);
    Object.assign(row, {
      status: 'signed',
      raw_tx: raw,
      tx_hash: hash,
      replaced_hashes: [...row.replaced_hashes, prev],
      sent_age_ms: null,
    });
    log.info(
      { transfer: row.id, replaced: prev, tx: hash, maxFeePerGas: next.maxFeePerGas },
      'transfers: replacing a stuck transaction with higher fees',
    );
    if (!broadcast) return 'replaced';
    try {
      await provider.broadcastTransaction(raw);
    } catch (err) {
      if (isNonceTooLow(err)) return 'lost';
      if (isUnderpriced(err)) return 'underpriced';
      if (!isAlreadyKnown(err)) throw err;
    }
    await this.markSent(row);
    return 'replaced';
  }

  private waitAny(row: SendingRow, chain: TransferChain): Promise<TransactionReceipt | null> {
    return waitMined({
      provider: chain.provider,
      hashes: () => hashesOf(row),
      confirmations: chain.confirmations,
      timeoutMs: this.opts.receiptTimeoutMs ?? 120_000,
      pollMs: this.opts.pollMs ?? chain.provider.pollingInterval,
      replaceInMs: this.fees.replaceAfterMs - (row.sent_age_ms ?? 0),
      replaceAfterMs: this.fees.replaceAfterMs,
      replace: () => this.replace(row),
    });
  }

  private async markSent(row: SendingRow): Promise<void> {
    await this.opts.pool.query(
      `UPDATE certificate_transfers SET status = 'sent', sent_at = COALESCE(sent_at, now()), updated_at = now()
       WHERE id = $1 AND status IN ('signed', 'sent')`,
      [row.id],
    );
    row.status = 'sent';
    row.sent_age_ms ??= 0;
  }

  async fail(id: string, reason: string, blockNumber: number | null): Promise<void> {
    await this.opts.pool.query(
      `UPDATE certificate_transfers SET status = 'failed', last_error = $2, block_number = $3, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, reason, blockNumber],
    );
    this.opts.log.warn({ transfer: id, reason }, 'transfers: transfer failed');
  }

  /**
   * Records a confirmed transfer: holder, provenance and the event, with the transfer's
   * `confirmed` and the mined hash as `tx_hash` (a replaced one that won moves back there).
   */
  private async confirm(
    row: TransferRow,
    txHash: string,
    blockNumber: number,
    relayer: string,
  ): Promise<void> {
    await transaction(this.opts.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE certificate_transfers SET status = 'confirmed', tx_hash = $2, block_number = $3, last_error = NULL,
           replaced_hashes = CASE WHEN tx_hash IS NULL OR tx_hash = $2 THEN replaced_hashes
                                  ELSE array_append(array_remove(replaced_hashes, $2), tx_hash) END,
           updated_at = now()
         WHERE id = $1 AND status <> 'confirmed'`,
        [row.id, txHash, blockNumber],
      );
      if (!rowCount) return;
      const { rows } = await tx.query<CertificateRow>(
        `UPDATE certificates SET holder_address = $2, updated_at = now() WHERE id = $1 RETURNING *`,
        [row.certificate_id, row.to_address],
      );
      await tx.query(
        `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
         VALUES ($1, 'transferred', $2, $3, $4, $5, $6)`,
        [row.certificate_id, row.actor_id ?? relayer, row.from_address, row.to_address, txHash, blockNumber],
      );
      const cert = certificateFromRow(rows[0]!);
      await recordEvents(tx, EVENT_SOURCE, [
        {
          type: 'certificate.transferred' as const,
          data: {
            object: certificateEventObject(cert) as { id: string; tokenId: number; holderAddress: string },
            transfer: {
              from: row.from_address,
              to: row.to_address,
              toUserId: row.to_user_id,
              transactionHash: txHash,
              blockNumber,
            },
          },
          enterpriseId: cert.enterpriseId,
          livemode: cert.livemode,
        },
      ]);
    });
    this.opts.log.info(
      { transfer: row.id, certificate: row.certificate_id, tx: txHash },
      'transfers: confirmed',
    );
  }
}
