// Reading HallmarkCertificates' logs. A batch's tokens appear in one of two ways, fixed per
// deployment: one ERC-2309 `ConsecutiveTransfer(first, last, 0, to)` (the default), or one
// ERC-721 `Transfer(0, to, id)` per token (`perTokenTransferEvents`). Single-token transfers,
// permit transfers and burns are always `Transfer`. Everything here reads both, so a reader never
// needs to know which mode minted a batch.
import { TransactionReceipt, getAddress, type Log } from 'ethers';
import {
  BATCH_MINTED_TOPIC,
  CONSECUTIVE_TRANSFER_TOPIC,
  TRANSFER_TOPIC,
  certificatesInterface,
} from './abi.js';

/** Which events a deployment mints batches with (`HALLMARK_CHAIN_TRANSFER_EVENTS`). */
export type TransferEventMode = 'erc2309' | 'per-token';

export const TRANSFER_EVENT_MODES: readonly TransferEventMode[] = ['erc2309', 'per-token'];

const plainLogsGetter = Object.getOwnPropertyDescriptor(TransactionReceipt.prototype, 'logs')!.get!;

/**
 * The raw logs of a receipt. A `ContractTransactionReceipt` (what `tx.wait()` resolves to)
 * overrides `logs` to decode every log against the ABI on each access, which takes about a
 * second for a batch minted with 1,000 Transfer logs; this reads the plain list instead.
 */
export function receiptLogs(receipt: TransactionReceipt): readonly Log[] {
  return plainLogsGetter.call(receipt) as readonly Log[];
}

export interface BatchMinted {
  batchKey: string;
  firstTokenId: bigint;
  quantity: bigint;
  merkleRoot: string;
  to: string;
}

/** A range of consecutive token ids that moved from `from` to `to` in one log (or one token). */
export interface OwnershipChange {
  firstTokenId: bigint;
  lastTokenId: bigint;
  from: string;
  to: string;
  /** `ConsecutiveTransfer` (ERC-2309) or `Transfer` (ERC-721, one token). */
  event: 'ConsecutiveTransfer' | 'Transfer';
  blockNumber: number;
  logIndex: number;
  transactionHash: string;
}

const ZERO = '0x0000000000000000000000000000000000000000';

function logsOf(source: TransactionReceipt | readonly Log[]): readonly Log[] {
  return 'logs' in source ? receiptLogs(source as TransactionReceipt) : (source as readonly Log[]);
}

function fromThis(log: Log, contract: string): boolean {
  return log.address.toLowerCase() === contract.toLowerCase();
}

/** The BatchMinted events of `contract` in a receipt or a list of logs. */
export function parseBatchMinted(
  source: TransactionReceipt | readonly Log[],
  contract: string,
): BatchMinted[] {
  const out: BatchMinted[] = [];
  for (const log of logsOf(source)) {
    // cheap filters first: a per-token batch receipt also holds one Transfer log per token
    if (log.topics[0] !== BATCH_MINTED_TOPIC || !fromThis(log, contract)) continue;
    const parsed = certificatesInterface.parseLog({ topics: [...log.topics], data: log.data });
    if (!parsed) continue;
    out.push({
      batchKey: parsed.args.batchKey as string,
      firstTokenId: parsed.args.firstTokenId as bigint,
      quantity: parsed.args.quantity as bigint,
      merkleRoot: parsed.args.merkleRoot as string,
      to: parsed.args.to as string,
    });
  }
  return out;
}

/**
 * Every ownership change of `contract` in the logs, in log order: ERC-2309 ranges and ERC-721
 * single transfers alike (a mint is `from` zero, a burn `to` zero). Decoded from the topics by
 * hand: `Transfer` and `ConsecutiveTransfer` index all but `toTokenId`.
 */
export function parseOwnershipChanges(
  source: TransactionReceipt | readonly Log[],
  contract: string,
): OwnershipChange[] {
  const out: OwnershipChange[] = [];
  for (const log of logsOf(source)) {
    const topic = log.topics[0];
    if ((topic !== TRANSFER_TOPIC && topic !== CONSECUTIVE_TRANSFER_TOPIC) || !fromThis(log, contract))
      continue;
    const at = { blockNumber: log.blockNumber, logIndex: log.index, transactionHash: log.transactionHash };
    if (topic === TRANSFER_TOPIC && log.topics.length === 4) {
      const id = BigInt(log.topics[3]!);
      out.push({
        firstTokenId: id,
        lastTokenId: id,
        from: topicAddress(log.topics[1]!),
        to: topicAddress(log.topics[2]!),
        event: 'Transfer',
        ...at,
      });
    } else if (topic === CONSECUTIVE_TRANSFER_TOPIC && log.topics.length === 4) {
      out.push({
        firstTokenId: BigInt(log.topics[1]!),
        lastTokenId: BigInt(log.data),
        from: topicAddress(log.topics[2]!),
        to: topicAddress(log.topics[3]!),
        event: 'ConsecutiveTransfer',
        ...at,
      });
    }
  }
  return out;
}

function topicAddress(topic: string): string {
  return getAddress(`0x${topic.slice(-40)}`);
}

/**
 * The token ids a receipt minted to `to` (from zero), whichever event mode minted them: the
 * relayer's and the verifier's check that a batch's tokens are in its transaction.
 */
export function mintedRanges(
  source: TransactionReceipt | readonly Log[],
  contract: string,
): { firstTokenId: bigint; lastTokenId: bigint; to: string }[] {
  return parseOwnershipChanges(source, contract)
    .filter((c) => c.from === ZERO)
    .map(({ firstTokenId, lastTokenId, to }) => ({ firstTokenId, lastTokenId, to }));
}

/** Whether the ranges minted in a receipt cover every id of [first, last] (mint events of either mode). */
export function mintCovers(
  ranges: readonly { firstTokenId: bigint; lastTokenId: bigint }[],
  first: bigint,
  last: bigint,
): boolean {
  const sorted = [...ranges].sort((a, b) => (a.firstTokenId < b.firstTokenId ? -1 : 1));
  let next = first;
  for (const r of sorted) {
    if (r.firstTokenId > next) break;
    if (r.lastTokenId >= next) next = r.lastTokenId + 1n;
    if (next > last) return true;
  }
  return next > last;
}

/**
 * Owners rebuilt from events alone, as an off-chain ERC-2309 indexer does: every change applied
 * in order over the ids it covers (a burn removes the id). Only the ids in `ids` are tracked, so
 * the map stays as small as the question.
 */
export function ownersFromChanges(
  changes: readonly OwnershipChange[],
  ids: readonly bigint[],
): Map<bigint, string> {
  const tracked = new Set(ids);
  const owners = new Map<bigint, string>();
  for (const c of changes) {
    for (const id of tracked) {
      if (id < c.firstTokenId || id > c.lastTokenId) continue;
      if (c.to === ZERO) owners.delete(id);
      else owners.set(id, c.to);
    }
  }
  return owners;
}

/** The changes that moved `tokenId` (its mint, whichever event announced it, then each transfer or burn). */
export function changesOfToken(changes: readonly OwnershipChange[], tokenId: bigint): OwnershipChange[] {
  return changes.filter((c) => c.firstTokenId <= tokenId && tokenId <= c.lastTokenId);
}

/**
 * The tokens a receipt minted for the batch `batchKey`: its BatchMinted names the range, and the
 * mint events of the same receipt (one ConsecutiveTransfer, or a Transfer per token) must cover
 * it, to the same holder. Undefined when the receipt did not mint that batch; throws when the
 * events disagree (a contract that broke its own invariant is never recorded).
 */
export function batchTokensOf(
  receipt: TransactionReceipt,
  contract: string,
  batchKey: string,
): { firstTokenId: bigint; lastTokenId: bigint; to: string } | undefined {
  const batch = parseBatchMinted(receipt, contract).find((e) => e.batchKey === batchKey);
  if (!batch) return undefined;
  const lastTokenId = batch.firstTokenId + batch.quantity - 1n;
  const ranges = mintedRanges(receipt, contract).filter((r) => r.to === batch.to);
  if (!mintCovers(ranges, batch.firstTokenId, lastTokenId)) {
    throw new Error(
      `receipt ${receipt.hash} has BatchMinted ${batch.firstTokenId}..${lastTokenId} without mint events covering it`,
    );
  }
  return { firstTokenId: batch.firstTokenId, lastTokenId, to: batch.to };
}
