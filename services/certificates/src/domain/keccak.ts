// keccak256 for the hot paths (every certificate's metadata hash, every node of a batch tree):
// js-sha3 hashes ~5× faster than ethers' keccak256 here, which goes through @noble/hashes and
// hex strings. Same digests (test/batch-tree.test.ts, test/minting.test.ts compare with ethers).
import sha3 from 'js-sha3';

/** keccak256 of bytes, as bytes. */
export const keccakBytes = (data: Uint8Array): Buffer => Buffer.from(sha3.keccak256.arrayBuffer(data));

/** keccak256 of a string's UTF-8 bytes, as 0x-hex (ethers' `id`). */
export const keccakUtf8 = (text: string): string => `0x${sha3.keccak256(text)}`;
