// The Merkle tree of a batch's metadata hashes, exactly as HallmarkCertificates checks it
// (`verifyCertificate`): OpenZeppelin's StandardMerkleTree over (position, metadata hash) leaves.
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { AbiCoder, keccak256, type BigNumberish } from 'ethers';
import { keccakBytes as keccak } from '../domain/keccak.js';

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

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

function hashBytes(metadataHash: string): Buffer {
  if (!/^0x[0-9a-fA-F]{64}$/.test(metadataHash)) {
    throw new TypeError(`a metadata hash is 32 bytes of 0x-hex, not ${metadataHash.slice(0, 70)}`);
  }
  return Buffer.from(metadataHash.slice(2), 'hex');
}

/** The leaf of (index, hash), as bytes: keccak256(keccak256(abi.encode(uint256, bytes32))). */
function leafBytes(index: number, metadataHash: Buffer): Buffer {
  const encoded = Buffer.alloc(64);
  encoded.writeUIntBE(index, 26, 6); // uint256, big-endian; a batch index is far below 2^48
  metadataHash.copy(encoded, 32);
  return keccak(keccak(encoded));
}

/** A tree node: keccak256 of the two children in byte order (OpenZeppelin's standardNodeHash). */
function nodeHash(a: Buffer, b: Buffer): Buffer {
  return keccak(Buffer.compare(a, b) <= 0 ? Buffer.concat([a, b]) : Buffer.concat([b, a]));
}

/**
 * The Merkle tree of one batch: `metadataHashes[i]` is the 32-byte metadata hash of the batch's
 * i-th certificate (token firstTokenId + i). The same tree, node for node, as OpenZeppelin's
 * `StandardMerkleTree.of(values, ['uint256', 'bytes32'])` builds (leaves sorted, laid out from
 * the end of the array, sorted-pair node hashes: what the contract's MerkleProof checks), so
 * its root, proofs and `dump()` are OpenZeppelin's; built here because OpenZeppelin's ABI
 * encoder and hex round trips made a batch of 1,000 cost ~0.5 s of the certificates
 * process's CPU per MintBatch (test/batch-tree.test.ts keeps the two equal).
 */
export function buildBatchTree(metadataHashes: readonly string[]): BatchTree {
  const n = metadataHashes.length;
  if (n === 0) throw new Error('a batch needs at least one certificate');
  const leaves = metadataHashes.map((hash, index) => ({ index, hash: leafBytes(index, hashBytes(hash)) }));
  leaves.sort((a, b) => Buffer.compare(a.hash, b.hash));
  const tree = new Array<Buffer>(2 * n - 1);
  const treeIndex = new Array<number>(n);
  for (const [i, leaf] of leaves.entries()) {
    tree[tree.length - 1 - i] = leaf.hash;
    treeIndex[leaf.index] = tree.length - 1 - i;
  }
  for (let i = tree.length - 1 - n; i >= 0; i--) tree[i] = nodeHash(tree[2 * i + 1]!, tree[2 * i + 2]!);
  const at = (index: number): number => {
    const t = treeIndex[index];
    if (t === undefined) throw new RangeError(`no certificate at index ${index} of a batch of ${n}`);
    return t;
  };
  return {
    root: hex(tree[0]!),
    size: n,
    proof(index) {
      const proof: string[] = [];
      for (let i = at(index); i > 0; i = Math.floor((i - 1) / 2))
        proof.push(hex(tree[i % 2 === 1 ? i + 1 : i - 1]!));
      return proof;
    },
    leaf: (index) => hex(tree[at(index)]!),
    dump: () => ({
      format: 'standard-v1',
      leafEncoding: [...LEAF_ENCODING],
      tree: tree.map(hex),
      values: metadataHashes.map((hash, index): { value: LeafValue; treeIndex: number } => ({
        value: [String(index), hash],
        treeIndex: treeIndex[index]!,
      })),
    }),
  };
}

/** Reloads a tree saved with `BatchTree.dump()` (OpenZeppelin's format; validates it). */
export function loadBatchTree(dump: unknown): BatchTree {
  const tree = StandardMerkleTree.load(dump as Parameters<typeof StandardMerkleTree.load<LeafValue>>[0]);
  tree.validate();
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

/** Off-chain twin of `verifyCertificate` given the batch root. */
export function verifyBatchProof(
  root: string,
  index: BigNumberish,
  metadataHash: string,
  proof: string[],
): boolean {
  return StandardMerkleTree.verify(root, [...LEAF_ENCODING], [BigInt(index).toString(), metadataHash], proof);
}

/**
 * The root `buildBatchTree(metadataHashes).root` has, computed without keeping the tree's
 * proofs: the same leaves, sorted, and the same array-shaped tree of sorted-pair hashes. What a
 * verification answered from the chain index compares with the batch's BatchMinted root; a
 * proof still needs the tree (`buildBatchTree`). A generator: it pauses every few hundred
 * hashes, so `batchRootYielding` lets other work run between them.
 */
function* rootSteps(metadataHashes: readonly string[]): Generator<void, string> {
  const n = metadataHashes.length;
  if (n === 0) throw new Error('a batch needs at least one certificate');
  const leaves = new Array<Buffer>(n);
  for (let i = 0; i < n; i++) {
    leaves[i] = leafBytes(i, hashBytes(metadataHashes[i]!));
    if (i % 256 === 255) yield;
  }
  leaves.sort(Buffer.compare);
  const tree = new Array<Buffer>(2 * n - 1);
  for (let i = 0; i < n; i++) tree[tree.length - 1 - i] = leaves[i]!;
  for (let i = tree.length - 1 - n; i >= 0; i--) {
    tree[i] = nodeHash(tree[2 * i + 1]!, tree[2 * i + 2]!);
    if (i % 512 === 0) yield;
  }
  return hex(tree[0]!);
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
