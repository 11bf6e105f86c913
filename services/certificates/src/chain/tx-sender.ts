// The one path every relayer transaction takes (mints, transfers, allowlist writes): sign with
// the next nonce under the signer's mutex, persist the bytes and hash BEFORE the broadcast,
// re-broadcast persisted bytes after a restart, replace a stuck transaction with higher fees
// (same nonce; ./replacement.ts has the fee rules) and wait until one of its hashes is mined.
//
// Each kind of transaction keeps its own record (`chain_submissions`, `certificate_transfers`,
// or nothing for idempotent writes) and hands the sender a `TxJournal`: the store statements
// that persist a signing, a replacement and a broadcast. The sender updates the in-memory
// `TxState` the same way, so a caller always sees what the database holds.
//
// Nonces: the node's pending transaction count, read under the mutex that is held from reading
// it until the node accepted the broadcast, so the next read already counts it. Every
// transaction of the signer in this process goes through the same `TxSender`, hence the same
// mutex.
import type { Logger } from '@hallmark/kit';
import { Transaction, type BaseWallet, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
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
  type ReplaceOutcome,
} from './replacement.js';

export type { ReplaceOutcome } from './replacement.js';

/** A relayer transaction's signing state, as persisted by its journal. */
export interface TxState {
  id: string;
  status: string;
  signer?: string | null;
  nonce: number | string | null;
  rawTx: string | null;
  txHash: string | null;
  /** Earlier hashes (fee bumps, re-signings), oldest first: at most one of all is ever mined. */
  replacedHashes: string[];
  /** Time since the current bytes were first accepted by the node (ms); null: not yet. */
  sentAgeMs: number | null;
}

/** Where one kind of relayer transaction persists its signing states (its store's statements). */
export interface TxJournal {
  /** A signing with a fresh nonce: `signed`; a previous hash joins the replaced hashes. */
  signed(id: string, s: { signer: string; nonce: number; raw: string; hash: string }): Promise<void>;
  /** A fee bump of `prevHash`: `signed` with the new bytes; false if the record moved on. */
  replaced(id: string, prevHash: string, raw: string, hash: string): Promise<boolean>;
  /** The node accepted the current bytes: `sent` (the replace timer starts at the first acceptance). */
  sent(id: string): Promise<void>;
}

/** A journal that keeps nothing: for idempotent writes that a restart simply redoes. */
const MEMORY_JOURNAL: TxJournal = {
  signed: async () => undefined,
  replaced: async () => true,
  sent: async () => undefined,
};

/** The call a transaction makes: target, calldata and a gas limit (estimated by the caller). */
export interface TxCall {
  to: string;
  data: string;
  gasLimit: bigint;
}

export interface TxSenderOptions {
  provider: JsonRpcProvider;
  signer: BaseWallet;
  chainId: bigint;
  log: Logger;
  /** When a stuck transaction is replaced, and the fee cap (default: after 60 s, no cap). */
  feePolicy?: FeePolicy;
}

export interface WaitOptions {
  confirmations: number;
  timeoutMs: number;
  /** How often to look for a receipt (default: the provider's polling interval). */
  pollMs?: number;
  /** Names the transaction in the logs (e.g. `{ batchId }`). */
  label: Record<string, unknown>;
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

/** Every hash a transaction has had, the current one first. */
const hashesOf = (s: TxState): string[] => [
  ...(s.txHash ? [s.txHash] : []),
  ...s.replacedHashes.filter((h) => h !== s.txHash),
];

export class TxSender {
  private readonly mutex = new Mutex();
  readonly fees: FeePolicy;
  readonly address: string;

  constructor(private readonly opts: TxSenderOptions) {
    this.fees = opts.feePolicy ?? DEFAULT_FEE_POLICY;
    this.address = opts.signer.address;
  }

  get provider(): JsonRpcProvider {
    return this.opts.provider;
  }

  /** Runs `fn` under the signer's mutex (a nonce read → sign → broadcast). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(fn);
  }

  /**
   * Signs `call` with the next nonce, persists it (`signed`, an earlier hash kept) and, unless
   * told not to, broadcasts it (`sent`). `broadcast: false` stops where a crash between
   * persisting and sending would (tests). Answers the new hash.
   */
  sign(state: TxState, journal: TxJournal, call: TxCall, { broadcast = true } = {}): Promise<string> {
    return this.mutex.run(async () => {
      const { provider, signer, chainId } = this.opts;
      const [nonce, fees] = await Promise.all([
        provider.getTransactionCount(signer.address, 'pending'),
        provider.getFeeData(),
      ]);
      const raw = await signer.signTransaction({
        type: 2,
        chainId,
        to: call.to,
        data: call.data,
        nonce,
        gasLimit: call.gasLimit,
        ...initialFees(fees, this.fees),
      });
      const hash = Transaction.from(raw).hash!;
      await journal.signed(state.id, { signer: signer.address, nonce, raw, hash });
      Object.assign(state, {
        status: 'signed',
        signer: signer.address,
        nonce,
        rawTx: raw,
        txHash: hash,
        replacedHashes: state.txHash ? [...state.replacedHashes, state.txHash] : state.replacedHashes,
        sentAgeMs: null,
      });
      if (broadcast) {
        await provider.broadcastTransaction(raw);
        await this.markSent(state, journal);
      }
      return hash;
    });
  }

  /**
   * Sends the persisted bytes again. `nonce-taken`: their nonce went to another transaction,
   * so they can never be mined (the caller signs again once it knows none of its hashes was);
   * `waiting`: the node has them, or another transaction of that nonce (the fee bump outbids
   * it in time); `sent`: accepted now.
   */
  rebroadcast(state: TxState, journal: TxJournal): Promise<'sent' | 'waiting' | 'nonce-taken'> {
    return this.mutex.run(async () => {
      try {
        await this.opts.provider.broadcastTransaction(state.rawTx!);
      } catch (err) {
        if (isNonceTooLow(err)) return 'nonce-taken';
        if (isAlreadyKnown(err) || isUnderpriced(err)) return 'waiting';
        throw err;
      }
      await this.markSent(state, journal);
      return 'sent';
    });
  }

  /**
   * Replaces the pending transaction: the same nonce, gas and data with +20% fees (capped),
   * persisted (`signed`, the old hash kept) before it is broadcast (`sent`). `lost`: the nonce
   * is already mined (by an earlier hash: the wait finds it; by another transaction: the wait
   * ends and the caller's next pass signs again); `underpriced`: the node keeps
   * another transaction of this nonce for now; `capped`: the fee cap leaves no room, nothing
   * signed (`lost` instead when the nonce is mined meanwhile). `broadcast: false` stops where a
   * crash between persisting and sending would (tests).
   */
  async replace(
    state: TxState,
    journal: TxJournal,
    label: Record<string, unknown>,
    { broadcast = true } = {},
  ): Promise<ReplaceOutcome> {
    const { provider, signer, log } = this.opts;
    if (!this.signs(state)) throw new Error(`transaction record ${state.id} was signed by ${state.signer}`);
    const prev = state.txHash!;
    const next = bumpedFees(feesOf(state.rawTx!), await provider.getFeeData(), this.fees);
    if (!next) {
      // Nothing can be signed, so no node will say `nonce too low`: ask the chain whether the
      // nonce is already mined (by one of our hashes, or by another transaction that took it).
      if (await this.nonceMined(state)) return 'lost';
      log.warn({ ...label, tx: prev }, 'relayer: stuck transaction already at the fee cap');
      return 'capped';
    }
    const { raw, hash } = await signReplacement(signer, state.rawTx!, next);
    if (!(await journal.replaced(state.id, prev, raw, hash))) {
      throw new Error(`transaction record ${state.id} changed while replacing ${prev}`);
    }
    Object.assign(state, {
      status: 'signed',
      rawTx: raw,
      txHash: hash,
      replacedHashes: [...state.replacedHashes, prev],
      sentAgeMs: null,
    });
    log.info(
      { ...label, nonce: state.nonce, replaced: prev, tx: hash, maxFeePerGas: next.maxFeePerGas },
      'relayer: replacing a stuck transaction with higher fees',
    );
    if (!broadcast) return 'replaced';
    try {
      await provider.broadcastTransaction(raw);
    } catch (err) {
      if (isNonceTooLow(err)) {
        log.info({ ...label, tx: hash }, 'relayer: replacement lost: the nonce is already mined');
        return 'lost';
      }
      if (isUnderpriced(err)) return 'underpriced';
      if (!isAlreadyKnown(err)) throw err;
    }
    await this.markSent(state, journal);
    return 'replaced';
  }

  /** The receipt of whichever of the transaction's hashes is mined, if any. */
  findMined(state: TxState): Promise<TransactionReceipt | null> {
    return findMined(this.opts.provider, hashesOf(state));
  }

  /**
   * Waits until one of the transaction's hashes is mined with `confirmations`, replacing it
   * whenever it is due (`replaceAfterMs` after its current bytes were first accepted, across
   * restarts); null when `timeoutMs` passes first.
   */
  waitMined(state: TxState, journal: TxJournal, o: WaitOptions): Promise<TransactionReceipt | null> {
    return waitMined({
      provider: this.opts.provider,
      hashes: () => hashesOf(state),
      confirmations: o.confirmations,
      timeoutMs: o.timeoutMs,
      pollMs: o.pollMs ?? this.opts.provider.pollingInterval,
      // Another key's transaction (a signer no longer configured) is waited for, never replaced.
      replaceInMs: this.signs(state) ? this.fees.replaceAfterMs - (state.sentAgeMs ?? 0) : null,
      replaceAfterMs: this.fees.replaceAfterMs,
      replace: () => this.replace(state, journal, o.label),
    });
  }

  /**
   * Signs, sends and waits for a transaction kept only in memory (fee bumps included): for
   * idempotent writes such as the allowlist's, which a restart simply redoes after asking the
   * chain what it already has.
   */
  async send(call: TxCall, o: WaitOptions): Promise<TransactionReceipt | null> {
    const state: TxState = {
      id: 'memory',
      status: 'pending',
      nonce: null,
      rawTx: null,
      txHash: null,
      replacedHashes: [],
      sentAgeMs: null,
    };
    await this.sign(state, MEMORY_JOURNAL, call);
    return this.waitMined(state, MEMORY_JOURNAL, o);
  }

  /** Whether a transaction of the signer's with this nonce (ours or another) is mined. */
  private async nonceMined(state: TxState): Promise<boolean> {
    if (state.nonce === null) return false;
    return (await this.opts.provider.getTransactionCount(this.address, 'latest')) > Number(state.nonce);
  }

  /** Whether this sender's key signed the transaction (or nobody yet). */
  private signs(state: TxState): boolean {
    return !state.signer || state.signer.toLowerCase() === this.address.toLowerCase();
  }

  private async markSent(state: TxState, journal: TxJournal): Promise<void> {
    await journal.sent(state.id);
    state.status = 'sent';
    state.sentAgeMs ??= 0;
  }
}
