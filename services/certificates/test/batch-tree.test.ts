// The batch tree is built by our own code for speed; the contract checks proofs the way
// OpenZeppelin's StandardMerkleTree makes them. These keep the two the same tree.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { buildBatchTree, loadBatchTree } from '../src/chain/batch-tree.js';

const randomHash = () => `0x${randomBytes(32).toString('hex')}`;

describe('batch tree', () => {
  it.each([1, 2, 3, 7, 64, 1000])(
    'a batch of %i has the root, leaves, proofs and dump of OpenZeppelin’s StandardMerkleTree',
    (n) => {
      const hashes = Array.from({ length: n }, randomHash);
      const ours = buildBatchTree(hashes);
      const oz = StandardMerkleTree.of(
        hashes.map((h, i) => [String(i), h]),
        ['uint256', 'bytes32'],
      );
      expect(ours.root).toBe(oz.root);
      expect(ours.size).toBe(n);
      for (const i of new Set([0, Math.floor(n / 2), n - 1])) {
        expect(ours.proof(i)).toEqual(oz.getProof(i));
        expect(ours.leaf(i)).toBe(oz.leafHash([String(i), hashes[i]!]));
      }
      expect(ours.dump()).toEqual(oz.dump());
      // and OpenZeppelin's loader (which re-hashes every node) accepts the dump
      expect(loadBatchTree(JSON.parse(JSON.stringify(ours.dump()))).root).toBe(ours.root);
    },
  );

  it('a metadata hash that is not 32 bytes of hex is refused, and so is an index outside the batch', () => {
    expect(() => buildBatchTree(['0x1234'])).toThrow(TypeError);
    expect(() => buildBatchTree([])).toThrow('at least one');
    expect(() => buildBatchTree([randomHash()]).proof(1)).toThrow(RangeError);
  });
});
