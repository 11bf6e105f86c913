// The sending side of transfers: signs the holder's TransferPermit and hands the relayer's
// transferWithPermit to the relayer's one transaction path (../../chain/tx-sender.ts: signed and
// persisted before the broadcast, fee bumps, waiting), then records the outcome. Run by the mint
// worker's pass (only the replica holding the relayer's advisory lock), so mints and transfers
// share one nonce sequence and one signer mutex.
//
// A transfer's transaction(s) share one relayer nonce: the first signing and every fee bump
// (earlier hashes kept in `replaced_hashes`), so at most one of them is mined. Each drive first
// asks the chain whether any of them was mined (after a restart the current one may be a
// replacement that lost), and only then (re)sends: a known transaction is awaited, an unknown one
// re-broadcast as the same bytes, one whose nonce went to another transaction signed again (the
// token's permit nonce makes a signature usable once, so the token can never move twice for one
// transfer).
import type { Logger } from '@hallmark/kit';
import { getAddress, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import {
  certificatesInterface,
  CertificatesContract,
  permitDomain,
  signTransferPermit,
} from '../../chain/contract.js';
import type { Relayer } from '../../chain/relayer.js';
import type { ReplaceOutcome, TxState } from '../../chain/tx-sender.js';
import type { WalletStore } from '../../wallets/store.js';
import type { SendingRow, TransferStore } from '../store.js';

export type { SendingRow } from '../store.js';

/** Lifetime of a TransferPermit signature. */
const PERMIT_TTL_SECONDS = 3600;

export interface TransferChain {
  relayer: Relayer;
  provider: JsonRpcProvider;
  signer: Wallet;
  chainId: bigint;
  confirmations: number;
}

export interface TransferSenderOptions {
  transfers: TransferStore;
  wallets: WalletStore;
  chain: () => TransferChain | null;
  log: Logger;
  /** How long one sending pass waits for a receipt. */
  receiptTimeoutMs?: number;
  /** How often a waiting pass looks for a receipt (default: the provider's polling interval). */
  pollMs?: number;
}

/**
 * The row's signing state as the transaction path reads and writes it: a view over the row's
 * own columns, so the row always shows what was persisted.
 */
function txStateOf(row: SendingRow): TxState {
  return {
    get id() {
      return row.id;
    },
    get status() {
      return row.status;
    },
    set status(v: string) {
      row.status = v as SendingRow['status'];
    },
    get nonce() {
      return row.nonce;
    },
    set nonce(v: number | string | null) {
      row.nonce = v === null ? null : String(v);
    },
    get rawTx() {
      return row.raw_tx;
    },
    set rawTx(v: string | null) {
      row.raw_tx = v;
    },
    get txHash() {
      return row.tx_hash;
    },
    set txHash(v: string | null) {
      row.tx_hash = v;
    },
    get replacedHashes() {
      return row.replaced_hashes ?? [];
    },
    set replacedHashes(v: string[]) {
      row.replaced_hashes = v;
    },
    get sentAgeMs() {
      return row.sent_age_ms;
    },
    set sentAgeMs(v: number | null) {
      row.sent_age_ms = v;
    },
  };
}

export class TransferSender {
  constructor(private readonly opts: TransferSenderOptions) {}

  /** The open transfers, oldest first. */
  open(limit: number): Promise<SendingRow[]> {
    return this.opts.transfers.open(limit);
  }

  /** Brings one transfer as far as it goes; true when it became final. */
  async drive(row: SendingRow): Promise<boolean> {
    const chain = this.opts.chain()!;
    const { tx } = chain.relayer;
    const state = txStateOf(row);
    if (!(await tx.findMined(state))) {
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
   * Signs the holder's TransferPermit and the relayer's transaction, persists them (`signed`),
   * broadcasts (`sent`). False when the chain refuses the transfer (e.g. the wallet no longer
   * holds the token): the transfer is marked failed.
   */
  async send(row: SendingRow, { broadcast = true }: { broadcast?: boolean } = {}): Promise<boolean> {
    const chain = this.opts.chain()!;
    const contract = chain.relayer.contract;
    const owner = getAddress(await contract.ownerOf(row.token_id));
    if (owner !== getAddress(row.from_address)) {
      await this.fail(row.id, `the token is held by ${owner}, not by ${row.from_address}`, null);
      return false;
    }
    let deadline: bigint;
    let signature: string;
    if (row.permit_signature && row.permit_deadline) {
      // An import: the external holder signed the permit; the contract checks it.
      deadline = BigInt(row.permit_deadline);
      signature = row.permit_signature;
    } else {
      const holder = await this.opts.wallets.signer(row.from_address);
      deadline = BigInt(Math.floor(Date.now() / 1000) + PERMIT_TTL_SECONDS);
      signature = await signTransferPermit(holder, permitDomain(chain.chainId, contract.address), {
        to: row.to_address,
        tokenId: row.token_id,
        nonce: await contract.nonces(row.token_id),
        deadline,
      });
    }
    const data = certificatesInterface.encodeFunctionData('transferWithPermit', [
      row.to_address,
      row.token_id,
      deadline,
      signature,
    ]);
    let gas: bigint;
    try {
      gas = await chain.provider.estimateGas({ from: chain.signer.address, to: contract.address, data });
    } catch (err) {
      const reason = CertificatesContract.revertName(err);
      if (!reason) throw err;
      await this.fail(row.id, `refused by the contract: ${reason}`, null);
      return false;
    }
    const call = { to: contract.address, data, gasLimit: (gas * 12n) / 10n };
    await chain.relayer.tx.sign(txStateOf(row), this.opts.transfers, call, { broadcast });
    return true;
  }

  /**
   * Sends the persisted bytes again; signs anew when their nonce went to another transaction.
   * False when the transfer failed instead.
   */
  private async rebroadcast(row: SendingRow): Promise<boolean> {
    const chain = this.opts.chain()!;
    const outcome = await chain.relayer.tx.rebroadcast(txStateOf(row), this.opts.transfers);
    if (outcome !== 'nonce-taken') return true;
    // No hash of ours was mined (checked by drive just before): the nonce went elsewhere.
    this.opts.log.info({ transfer: row.id }, 'transfers: nonce taken, signing again');
    return this.send(row);
  }

  /**
   * Replaces the transfer's pending transaction with +20% fees (the permit inside stays valid:
   * its token nonce has not moved). `broadcast: false` stops where a crash would (tests).
   */
  replace(row: SendingRow, { broadcast = true }: { broadcast?: boolean } = {}): Promise<ReplaceOutcome> {
    const { tx } = this.opts.chain()!.relayer;
    return tx.replace(txStateOf(row), this.opts.transfers, { transfer: row.id }, { broadcast });
  }

  private waitAny(row: SendingRow, chain: TransferChain): Promise<TransactionReceipt | null> {
    return chain.relayer.tx.waitMined(txStateOf(row), this.opts.transfers, {
      confirmations: chain.confirmations,
      timeoutMs: this.opts.receiptTimeoutMs ?? 120_000,
      pollMs: this.opts.pollMs,
      label: { transfer: row.id },
    });
  }

  async fail(id: string, reason: string, blockNumber: number | null): Promise<void> {
    await this.opts.transfers.fail(id, reason, blockNumber);
    this.opts.log.warn({ transfer: id, reason }, 'transfers: transfer failed');
  }

  private async confirm(
    row: SendingRow,
    txHash: string,
    blockNumber: number,
    relayer: string,
  ): Promise<void> {
    if (!(await this.opts.transfers.confirm(row, txHash, blockNumber, relayer))) return;
    this.opts.log.info(
      { transfer: row.id, certificate: row.certificate_id, tx: txHash },
      'transfers: confirmed',
    );
  }
}
