// Pure rules of the chain index: the facts a range of the contract's logs establishes. A
// BatchMinted names a batch (range, Merkle root, holder) and where it was minted; the mint events
// of the same transaction must cover the range to that holder (one ERC-2309 ConsecutiveTransfer,
// or a Transfer from zero per token) for the batch to count as minted. A Transfer from a holder
// (a transfer, or a burn when to zero) moves one token; the last move of a token in log order is
// its owner.
import { ZeroAddress, type Log } from 'ethers';
import { BATCH_MINTED_TOPIC } from '../chain/abi.js';
import { mintCovers, parseBatchMinted, parseOwnershipChanges } from '../chain/events.js';

/** How the index saw a batch's tokens minted (`missing`: no mint events covered its range). */
export type MintEvents = 'erc2309' | 'per-token' | 'missing';

export interface IndexedBatch {
  firstTokenId: bigint;
  quantity: bigint;
  batchKey: string;
  merkleRoot: string;
  holder: string;
  transactionHash: string;
  blockNumber: number;
  mintEvents: MintEvents;
}

export interface TokenMove {
  tokenId: bigint;
  /** The new owner; the zero address when burned. */
  owner: string;
  burned: boolean;
  transactionHash: string;
  blockNumber: number;
  logIndex: number;
}

export interface ChainFacts {
  batches: IndexedBatch[];
  /** The last move of each token in the logs (one per token). */
  moves: TokenMove[];
}

/** The facts `logs` (of `contract`, in any order) establish. */
export function chainFactsOf(logs: readonly Log[], contract: string): ChainFacts {
  const changes = parseOwnershipChanges(logs, contract);
  const mintsByTx = new Map<string, typeof changes>();
  const moves = new Map<bigint, TokenMove>();
  for (const c of changes) {
    if (c.from === ZeroAddress) {
      const list = mintsByTx.get(c.transactionHash) ?? [];
      list.push(c);
      mintsByTx.set(c.transactionHash, list);
      continue;
    }
    // ERC-2309 ranges are only ever mints on this contract; a move is a single Transfer.
    if (c.event !== 'Transfer') continue;
    const move: TokenMove = {
      tokenId: c.firstTokenId,
      owner: c.to,
      burned: c.to === ZeroAddress,
      transactionHash: c.transactionHash,
      blockNumber: c.blockNumber,
      logIndex: c.logIndex,
    };
    const prior = moves.get(move.tokenId);
    if (!prior || laterThan(move, prior)) moves.set(move.tokenId, move);
  }
  const batches: IndexedBatch[] = [];
  for (const log of logs) {
    if (log.topics[0] !== BATCH_MINTED_TOPIC) continue;
    const b = parseBatchMinted([log], contract)[0];
    if (!b) continue;
    const mints = (mintsByTx.get(log.transactionHash) ?? []).filter((m) => m.to === b.to);
    const last = b.firstTokenId + b.quantity - 1n;
    const covered = mintCovers(mints, b.firstTokenId, last);
    batches.push({
      firstTokenId: b.firstTokenId,
      quantity: b.quantity,
      batchKey: b.batchKey,
      merkleRoot: b.merkleRoot,
      holder: b.to,
      transactionHash: log.transactionHash,
      blockNumber: log.blockNumber,
      mintEvents: !covered
        ? 'missing'
        : mints.some((m) => m.event === 'ConsecutiveTransfer')
          ? 'erc2309'
          : 'per-token',
    });
  }
  return { batches, moves: [...moves.values()] };
}

/** Whether `a` happened after `b` (block, then log index). */
export function laterThan(a: Pick<TokenMove, 'blockNumber' | 'logIndex'>, b: typeof a): boolean {
  return a.blockNumber > b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex > b.logIndex);
}
