// The Merkle tree of a batch's metadata hashes, exactly as HallmarkCertificates checks it
// (`verifyCertificate`): OpenZeppelin's StandardMerkleTree over (position, metadata hash) leaves.
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { AbiCoder, getBytes, hexlify, keccak256, type BigNumberish } from 'ethers';

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

/** Lexicographic order of two 32-byte nodes (what OpenZeppelin's order by value amounts to). */
function compareNodes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

const hashBytes = (data: Uint8Array) => getBytes(keccak256(data));

/**
 * The root `buildBatchTree(metadataHashes).root` has, computed without building the tree: the
 * same leaves, sorted as StandardMerkleTree sorts them, and the same array-shaped tree of
 * sorted-pair hashes, on bytes rather than hex strings (about a third of the time). What a
 * verification answered from the chain index compares with the batch's BatchMinted root; a
 * proof still needs the tree (`buildBatchTree`). A generator: it pauses every few hundred
 * hashes, so `batchRootYielding` lets other work run between them.
 */
function* rootSteps(metadataHashes: readonly string[]): Generator<void, string> {
  const n = metadataHashes.length;
  if (n === 0) throw new Error('a batch needs at least one certificate');
  const leaves: Uint8Array[] = new Array(n);
  const encoded = new Uint8Array(64); // abi.encode(uint256 index, bytes32 metadataHash)
  for (let i = 0; i < n; i++) {
    encoded.fill(0, 0, 32);
    for (let v = i, b = 31; v > 0; v = Math.floor(v / 256), b--) encoded[b] = v % 256;
    encoded.set(getBytes(metadataHashes[i]!), 32);
    leaves[i] = hashBytes(hashBytes(encoded));
    if (i % 256 === 255) yield;
  }
  leaves.sort(compareNodes);
  const tree: Uint8Array[] = new Array(2 * n - 1);
  for (let i = 0; i < n; i++) tree[tree.length - 1 - i] = leaves[i]!;
  const pair = new Uint8Array(64);
  for (let i = tree.length - 1 - n; i >= 0; i--) {
    const a = tree[2 * i + 1]!;
    const b = tree[2 * i + 2]!;
    const [lo, hi] = compareNodes(a, b) <= 0 ? [a, b] : [b, a];
    pair.set(lo, 0);
    pair.set(hi, 32);
    tree[i] = hashBytes(pair);
    if (i % 512 === 0) yield;
  }
  return hexlify(tree[0]!);
}

export function batchRoot(metadataHashes: readonly string[]): string {
  const steps = rootSteps(metadataHashes);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** `batchRoot`, giving the event loop a turn every few hundred hashes (a large batch takes long). */
export async function batchRootYielding(metadataHashes: readonly string[]): Promise<string> {
  const steps = rootSteps(metadataHashes);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
