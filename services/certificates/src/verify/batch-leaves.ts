// The batches a verification proves metadata against: each batch's stored metadata hashes (its
// Merkle leaves, in position order), their root and the batch's on-chain key, read and hashed
// once per batch and kept (bounded by the leaves held), so a verification of a batch seen
// before hashes nothing. Concurrent verifications of one batch share its one read and hashing
// (a batch of 10,000 is 30,000 keccak256s: no stampede of them), and the hashing gives the
// event loop a turn every few hundred hashes, so other reads are answered meanwhile. The
// OpenZeppelin tree a chain proof needs is built only for the chain path (certificates the
// chain index does not cover yet), a few batches kept.
import { batchRootYielding, buildBatchTree, type BatchTree } from '../chain/contract.js';
import type { VerifyStore } from './store.js';

export interface BatchLeaves {
  hashes: string[];
  /** The root of `hashes` as minted (buildBatchTree's). */
  root: string;
  batchKey: string | null;
}

/** Leaves held at most (≈ 100 bytes each); the least recently added batch goes first. */
const MAX_LEAVES = 500_000;
const MAX_TREES = 8;

export class BatchLeavesCache {
  private readonly batches = new Map<string, Promise<BatchLeaves>>();
  private readonly sizes = new Map<string, number>();
  private held = 0;
  private readonly trees = new Map<string, Promise<BatchTree>>();

  constructor(private readonly reads: VerifyStore) {}

  /** The batch's leaves, root and key (read and hashed once). */
  leaves(batchId: string): Promise<BatchLeaves> {
    let found = this.batches.get(batchId);
    if (!found) {
      found = this.load(batchId);
      this.batches.set(batchId, found);
      // A failed read is not kept: the next verification reads again.
      found.catch(() => this.forget(batchId));
    }
    return found;
  }

  /** The root with `leafHash` at `position` instead of the stored hash (a record edited since). */
  async rootWith(batch: BatchLeaves, position: number, leafHash: string): Promise<string> {
    if (batch.hashes[position] === leafHash) return batch.root;
    const hashes = [...batch.hashes];
    hashes[position] = leafHash;
    return batchRootYielding(hashes);
  }

  /** The OpenZeppelin tree of the batch with `leafHash` at `position` (for a proof). */
  async tree(batchId: string, position: number, leafHash: string): Promise<BatchTree> {
    const batch = await this.leaves(batchId);
    if (batch.hashes[position] !== leafHash) {
      const hashes = [...batch.hashes];
      hashes[position] = leafHash;
      return buildBatchTree(hashes);
    }
    let tree = this.trees.get(batchId);
    if (!tree) {
      tree = Promise.resolve().then(() => buildBatchTree(batch.hashes));
      this.trees.set(batchId, tree);
      if (this.trees.size > MAX_TREES) this.trees.delete(this.trees.keys().next().value!);
    }
    return tree;
  }

  private async load(batchId: string): Promise<BatchLeaves> {
    const [hashes, batchKey] = await Promise.all([
      this.reads.batchMetadataHashes(batchId),
      this.reads.batchKey(batchId),
    ]);
    const root = await batchRootYielding(hashes);
    this.sizes.set(batchId, hashes.length);
    this.held += hashes.length;
    for (const oldest of this.batches.keys()) {
      if (this.held <= MAX_LEAVES || oldest === batchId) break;
      this.forget(oldest);
    }
    return { hashes, root, batchKey };
  }

  private forget(batchId: string): void {
    this.batches.delete(batchId);
    this.trees.delete(batchId);
    this.held -= this.sizes.get(batchId) ?? 0;
    this.sizes.delete(batchId);
  }
}
