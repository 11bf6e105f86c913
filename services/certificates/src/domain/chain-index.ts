// The chain index (migration 3101) as its writer (the chain indexer) and its readers (the
// verifier, the re-check) name it: one checkpoint per chain and contract, and the facts of a
// token as a verification reads them.

/** `chain_state` key of the chain indexer's checkpoint: the last block it fully indexed. */
export const chainIndexKey = (chainId: bigint | string, contract: string): string =>
  `chain-indexer:${chainId}:${contract.toLowerCase()}`;

/** The indexed BatchMinted of a token's batch. */
export interface IndexedBatchFacts {
  firstTokenId: bigint;
  quantity: bigint;
  batchKey: string;
  merkleRoot: string;
  holder: string;
  transactionHash: string;
  blockNumber: number;
  mintEvents: 'erc2309' | 'per-token' | 'missing';
}

/** The indexed last move of a token after its mint (a transfer, or its burn). */
export interface IndexedMove {
  owner: string;
  burned: boolean;
  transactionHash: string;
  blockNumber: number;
}

/** What the index knows of one token, and up to which block it knows it. */
export interface TokenFacts {
  /** The indexer's checkpoint (null: nothing indexed yet). */
  checkpoint: number | null;
  /** The batch that minted the token, when the index has it. */
  batch: IndexedBatchFacts | null;
  move: IndexedMove | null;
}

/** Whether the index can answer for a token minted in `mintBlock` (else the chain is asked). */
export const indexCovers = (f: TokenFacts, tokenId: bigint, mintBlock: number): boolean =>
  f.checkpoint !== null &&
  f.checkpoint >= mintBlock &&
  f.batch !== null &&
  f.batch.firstTokenId <= tokenId &&
  tokenId < f.batch.firstTokenId + f.batch.quantity;
