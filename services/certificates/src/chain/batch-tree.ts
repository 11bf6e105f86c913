// The Merkle tree of a batch's metadata hashes, exactly as HallmarkCertificates checks it
// (`verifyCertificate`): OpenZeppelin's StandardMerkleTree over (position, metadata hash) leaves.
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { AbiCoder, keccak256, type BigNumberish } from 'ethers';

/** Leaf encoding of the batch trees: (position in the batch, metadata hash). */
const LEAF_ENCODING = ['uint256', 'bytes32'] as const;

/**
 * The leaf the contract checks for the token at `index` (= tokenId − firstTokenId) of its batch:
 * keccak256(bytes.concat(keccak256(abi.encode(index, metadataHash)))).
 */
export function certificateLeaf(index: BigNumberish, metadataHash: string): string {
  return keccak256(keccak256(AbiCoder.defaultAbiCoder().encode([...LEAF_ENCODING], [index, metadataHash])));
}

export interface BatchTree {
  /** The root to pass to `mintBatch`. */
  root: string;
  size: number;
  /** Proof for the certificate at `index` of the batch (its token id is firstTokenId + index). */
  proof(index: number): string[];
  leaf(index: number): string;
  /** JSON-serialisable form (`StandardMerkleTree` format), reloadable with `loadBatchTree`. */
  dump(): unknown;
}

// uint256 values are kept as decimal strings so that `dump()` is plain JSON.
type LeafValue = [index: string, metadataHash: string];

function wrapTree(tree: StandardMerkleTree<LeafValue>): BatchTree {
  return {
    root: tree.root,
    size: tree.length,
    proof: (index) => tree.getProof(index),
    leaf: (index) => {
      const value = tree.at(index);
      if (!value) throw new RangeError(`no certificate at index ${index} of a batch of ${tree.length}`);
      return tree.leafHash(value);
    },
    dump: () => tree.dump(),
  };
}

/**
 * The Merkle tree of one batch: `metadataHashes[i]` is the 32-byte metadata hash of the batch's
 * i-th certificate (token firstTokenId + i). Built with OpenZeppelin's StandardMerkleTree, which
 * hashes leaves and sorted pairs exactly as the contract's MerkleProof check does.
 */
export function buildBatchTree(metadataHashes: readonly string[]): BatchTree {
  if (metadataHashes.length === 0) throw new Error('a batch needs at least one certificate');
  const values = metadataHashes.map((hash, i): LeafValue => [String(i), hash]);
  return wrapTree(StandardMerkleTree.of(values, [...LEAF_ENCODING]));
}

/** Reloads a tree saved with `BatchTree.dump()` (validates it). */
export function loadBatchTree(dump: unknown): BatchTree {
  const tree = StandardMerkleTree.load(dump as Parameters<typeof StandardMerkleTree.load<LeafValue>>[0]);
  tree.validate();
  return wrapTree(tree);
}

/** Off-chain twin of `verifyCertificate` given the batch root. */
export function verifyBatchProof(
  root: string,
  index: BigNumberish,
  metadataHash: string,
  proof: string[],
): boolean {
  return StandardMerkleTree.verify(root, [...LEAF_ENCODING], [BigInt(index).toString(), metadataHash], proof);
}
