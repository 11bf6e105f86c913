// batchRoot, the verifier's fast root of a batch's metadata hashes, is the root of the tree the
// contract checks (buildBatchTree, OpenZeppelin's StandardMerkleTree) for every batch shape:
// one leaf, odd and even counts, and a leaf changed (a record edited after minting).
import { describe, expect, it } from '@jest/globals';
import { id as keccakUtf8 } from 'ethers';
import { batchRoot, buildBatchTree } from '../src/chain/batch-tree.js';

const hashes = (n: number, salt = '') => Array.from({ length: n }, (_, i) => keccakUtf8(`${salt}${i}`));

describe('batchRoot', () => {
  it('is the root of buildBatchTree for batches of 1, 2, 3, 7, 256 and 1,001 certificates, and changes with any leaf', () => {
    for (const n of [1, 2, 3, 7, 256, 1001]) {
      const leaves = hashes(n, `b${n}`);
      expect(batchRoot(leaves)).toBe(buildBatchTree(leaves).root);
      const edited = [...leaves];
      edited[n >> 1] = keccakUtf8('edited');
      expect(batchRoot(edited)).not.toBe(buildBatchTree(leaves).root);
      expect(batchRoot(edited)).toBe(buildBatchTree(edited).root);
    }
  });
});
