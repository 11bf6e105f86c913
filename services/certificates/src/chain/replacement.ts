// Fee bump of stuck transactions: the rules and chain primitives of ./tx-sender.ts, the one
// path of every relayer transaction (mints, transfers, allowlist writes).
//
// A transaction the node accepted but did not mine within `replaceAfterMs` (the network's
// fees rose above what it offers) is signed again with the SAME nonce and higher fees: both
// maxFeePerGas and maxPriorityFeePerGas +20% (nodes replace a pending transaction only when
// both rise by at least their minimum: 10% in geth, 12.5% in others), or the node's current
// suggestion when higher, never above the configured cap. The caller persists the new bytes
// and hash (keeping every earlier hash) BEFORE broadcasting them, exactly as for the first
// signing. One nonce means at most one of the hashes can be mined; `waitMined` watches all of
// them and answers whichever was.
import { Transaction, type BaseWallet, type FeeData, type Provider, type TransactionReceipt } from 'ethers';

export interface FeePolicy {
  /** How long a broadcast transaction may stay unmined before it is replaced. */
  replaceAfterMs: number;
  /** Highest maxFeePerGas any transaction is signed with (wei); null: no cap. */
  maxFeePerGas: bigint | null;
}

export const DEFAULT_FEE_POLICY: FeePolicy = { replaceAfterMs: 60_000, maxFeePerGas: null };

/** What a replacement adds to both fees, in percent. */
const BUMP_PERCENT = 20n;
/** The largest minimum price bump a node asks of a replacement, in per mille (12.5%). */
const NODE_MIN_BUMP_PER_MILLE = 1125n;

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The fees of a first signing: the node's suggestion, capped. */
export function initialFees(suggested: FeeData, policy: FeePolicy): Fees {
  if (suggested.maxFeePerGas === null || suggested.maxPriorityFeePerGas === null) {
    throw new Error('the node suggests no EIP-1559 fees');
  }
  const maxFeePerGas =
    policy.maxFeePerGas === null ? suggested.maxFeePerGas : min(suggested.maxFeePerGas, policy.maxFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas: min(suggested.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * The fees of a replacement of `prev`: +20% each (or the node's current suggestion when
 * higher), capped. Null when the cap leaves less than a node's minimum bump: the transaction
 * cannot be replaced and is left to wait.
 */
export function bumpedFees(prev: Fees, suggested: FeeData, policy: FeePolicy): Fees | null {
  const bump = (v: bigint) => ceilDiv(v * (100n + BUMP_PERCENT), 100n);
  let maxFeePerGas = max(bump(prev.maxFeePerGas), suggested.maxFeePerGas ?? 0n);
  let maxPriorityFeePerGas = max(bump(prev.maxPriorityFeePerGas), suggested.maxPriorityFeePerGas ?? 0n);
  if (policy.maxFeePerGas !== null) maxFeePerGas = min(maxFeePerGas, policy.maxFeePerGas);
  maxPriorityFeePerGas = min(maxPriorityFeePerGas, maxFeePerGas);
  const enough = (next: bigint, old: bigint) => next >= ceilDiv(old * NODE_MIN_BUMP_PER_MILLE, 1000n);
  if (!enough(maxFeePerGas, prev.maxFeePerGas) || !enough(maxPriorityFeePerGas, prev.maxPriorityFeePerGas)) {
    return null;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** The fees a signed EIP-1559 transaction offers. */
export function feesOf(raw: string): Fees & { nonce: number } {
  const tx = Transaction.from(raw);
  if (tx.maxFeePerGas === null || tx.maxPriorityFeePerGas === null) {
    throw new Error('not an EIP-1559 transaction');
  }
  return { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas, nonce: tx.nonce };
}

/**
 * Signs `raw` again with the given fees and everything else (nonce, gas limit, data)
 * unchanged. Answers the new bytes and hash; nothing is sent.
 */
export async function signReplacement(
  signer: BaseWallet,
  raw: string,
  fees: Fees,
): Promise<{ raw: string; hash: string }> {
  const prev = Transaction.from(raw);
  const next = await signer.signTransaction({
    type: 2,
    chainId: prev.chainId,
    to: prev.to,
    data: prev.data,
    value: prev.value,
    nonce: prev.nonce,
    gasLimit: prev.gasLimit,
    accessList: prev.accessList ?? [],
    ...fees,
  });
  return { raw: next, hash: Transaction.from(next).hash! };
}

/** The receipt of whichever of `hashes` is mined, if any. */
export async function findMined(
  provider: Provider,
  hashes: readonly string[],
): Promise<TransactionReceipt | null> {
  for (const hash of hashes) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) return receipt;
  }
  return null;
}

/** What a replacement attempt did (TxSender.replace). */
export type ReplaceOutcome = 'replaced' | 'capped' | 'lost' | 'underpriced';

export interface WaitMinedOptions {
  provider: Provider;
  /** Every hash the transaction has had (read again on each poll: a replacement adds one). */
  hashes: () => readonly string[];
  confirmations: number;
  timeoutMs: number;
  pollMs: number;
  /**
   * When the current version is due for replacement, in ms from now; null: never. After a
   * replacement the next one is due `replaceAfterMs` later.
   */
  replaceInMs: number | null;
  replaceAfterMs: number;
  /** Signs, persists and broadcasts a replacement (errors end the wait). */
  replace: () => Promise<ReplaceOutcome>;
}

/**
 * Waits until one of the hashes is mined with `confirmations` confirmations, replacing the
 * transaction whenever it is due; null when `timeoutMs` passes first, or as soon as a
 * replacement shows the nonce mined by none of the hashes.
 */
export async function waitMined(o: WaitMinedOptions): Promise<TransactionReceipt | null> {
  const deadline = Date.now() + o.timeoutMs;
  let replaceAt = o.replaceInMs === null ? null : Date.now() + Math.max(0, o.replaceInMs);
  for (;;) {
    const mined = await findMined(o.provider, o.hashes());
    if (mined) {
      if (o.confirmations <= 1) return mined;
      return o.provider
        .waitForTransaction(mined.hash, o.confirmations, Math.max(1000, deadline - Date.now()))
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === 'TIMEOUT') return null;
          throw err;
        });
    }
    if (replaceAt !== null && Date.now() >= replaceAt) {
      if ((await o.replace()) === 'lost' && !(await findMined(o.provider, o.hashes()))) {
        // The nonce is mined, by none of our hashes: another transaction of the signer took it
        // (the node dropped ours — evicted under a fee spike, or lost with a node's mempool —
        // and the next signing read the same pending count). These bytes can never be mined,
        // and waiting out the timeout would hold the submission (and what waits on it) for
        // minutes: the caller's next pass asks the chain, finds the nonce taken and signs again.
        return null;
      }
      replaceAt = Date.now() + o.replaceAfterMs;
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) return null;
    const untilReplace = replaceAt === null ? left : Math.max(0, replaceAt - Date.now());
    await new Promise((r) => setTimeout(r, Math.min(o.pollMs, left, untilReplace)));
  }
}

function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string; error?: { message?: string }; info?: unknown };
  return `${e?.code ?? ''} ${e?.message ?? ''} ${e?.error?.message ?? ''} ${JSON.stringify(e?.info ?? '')}`;
}

/** The nonce was used by a mined transaction: a transaction with it can never be mined now. */
export function isNonceTooLow(err: unknown): boolean {
  return (err as { code?: string })?.code === 'NONCE_EXPIRED' || /nonce too low/i.test(errorText(err));
}

/** The node already has exactly these bytes. */
export function isAlreadyKnown(err: unknown): boolean {
  return /already known|known transaction|already imported/i.test(errorText(err));
}

/** The node holds another transaction with this nonce that offers at least as much. */
export function isUnderpriced(err: unknown): boolean {
  return (
    (err as { code?: string })?.code === 'REPLACEMENT_UNDERPRICED' ||
    /underpriced|fee too low/i.test(errorText(err))
  );
}
