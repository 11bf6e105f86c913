// A batch as HallmarkCertificates records it: identified by its first token id, its idempotency
// key's one storage slot anchoring the Merkle root (the root's 208 high bits | the first token id).
import { id as keccakUtf8 } from 'ethers';

/** A batch, identified on chain by its first token id. */
export interface BatchInfo {
  firstTokenId: bigint;
  quantity: bigint;
  /** The holding address the batch was minted to. */
  to: string;
}

/**
 * A consumed batch key's on-chain record: the batch, and what the chain stores of its Merkle root
 * (the root with its low 48 bits cleared; the full root is in the batch's BatchMinted event).
 */
export interface BatchRecord extends BatchInfo {
  merkleRootHigh: string;
}

const ROOT_LOW_BITS = (1n << 48n) - 1n;

/** Whether `merkleRoot` is the root a batch record anchors (its 208 high bits match). */
export function anchorsRoot(record: Pick<BatchRecord, 'merkleRootHigh'>, merkleRoot: string): boolean {
  return (BigInt(merkleRoot) & ~ROOT_LOW_BITS) === BigInt(record.merkleRootHigh);
}

/** A 32-byte batch key derived from an idempotency key string (keccak256 of its UTF-8). */
export function batchKeyOf(idempotencyKey: string): string {
  return keccakUtf8(idempotencyKey);
}
