// Pure rules of a verification answered from the chain index (migration 3101): the four chain
// checks, each with the same reasons the chain reads give (./chain-checks.ts), judged on the
// indexed BatchMinted of the token's batch, its mint events and the token's last move. The
// caller passes the Merkle root of the batch's stored hashes with this certificate's recomputed
// hash at its position: the metadata passes when that is the root the chain's BatchMinted
// carries and the record's batch key is the one the chain minted with.
import { getAddress } from 'ethers';
import type { IndexedBatchFacts, IndexedMove } from '../domain/chain-index.js';

export type CheckName = 'record_found' | 'on_chain' | 'holder' | 'metadata' | 'not_burned' | 'image';

export interface Check {
  name: CheckName;
  passed: boolean;
  detail: string;
}

export const short = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

export interface IndexedInput {
  tokenId: bigint;
  transactionHash: string;
  blockNumber: number;
  holderAddress: string;
  status: string;
  /** The metadata hash as minted (stored) and as recomputed from the record now. */
  storedHash: string;
  recomputedHash: string;
  /** Root of the batch tree with the recomputed hash at this certificate's position. */
  provenRoot: string;
  /** The batch key the record names (null: none recorded). */
  batchKey: string | null;
  batch: IndexedBatchFacts;
  move: IndexedMove | null;
}

export interface ChainChecks {
  checks: Check[];
  chainOwner: string | null;
  chainBurned: boolean;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function burnedDetail(burn: { tx: string; block: number } | null): string {
  return burn
    ? `This certificate was burned (permanently destroyed) in transaction ${short(burn.tx)}, block ${burn.block}.`
    : 'This certificate was burned (permanently destroyed): its token no longer exists.';
}

/** on_chain, holder, metadata and not_burned of a minted certificate, from the index. */
export function indexedChecks(i: IndexedInput): ChainChecks {
  const { tokenId, batch: b } = i;
  const burned = i.move?.burned === true;
  const tx = i.transactionHash;
  let onChain: Check;
  if (!same(b.transactionHash, tx) || b.mintEvents === 'missing') {
    onChain = {
      name: 'on_chain',
      passed: false,
      detail: `Transaction ${short(tx)} did not mint token #${tokenId} on this certificate's contract.`,
    };
  } else if (b.blockNumber !== i.blockNumber) {
    onChain = {
      name: 'on_chain',
      passed: false,
      detail: `Transaction ${short(tx)} is in block ${b.blockNumber}, but the record says block ${i.blockNumber}.`,
    };
  } else {
    const consecutive = b.mintEvents === 'erc2309' && b.quantity > 1n;
    onChain = {
      name: 'on_chain',
      passed: true,
      detail: `Token #${tokenId} was minted in transaction ${short(tx)}, block ${b.blockNumber} (a batch of ${b.quantity} from #${b.firstTokenId}${consecutive ? ', announced by one ERC-2309 ConsecutiveTransfer' : ''}).`,
    };
  }

  let holder: Check;
  let chainOwner: string | null = null;
  if (burned) {
    holder = {
      name: 'holder',
      passed: false,
      detail: 'The token no longer exists on chain, so it has no holder.',
    };
  } else {
    chainOwner = getAddress(i.move?.owner ?? b.holder);
    const recorded = getAddress(i.holderAddress);
    holder = {
      name: 'holder',
      passed: chainOwner === recorded,
      detail:
        chainOwner === recorded
          ? `The chain reports the recorded holder ${chainOwner} as the token's owner.`
          : `The chain reports ${chainOwner} as the owner, but the record says ${recorded}.`,
    };
  }

  let metadata: Check;
  if (burned) {
    metadata = {
      name: 'metadata',
      passed: false,
      detail: 'The token no longer exists on chain, so its metadata cannot be proven.',
    };
  } else if (!i.batchKey) {
    metadata = { name: 'metadata', passed: false, detail: 'The record has no on-chain batch key.' };
  } else if (!same(i.batchKey, b.batchKey) || !same(i.provenRoot, b.merkleRoot)) {
    metadata = {
      name: 'metadata',
      passed: false,
      detail:
        i.recomputedHash === i.storedHash
          ? 'The metadata does not match the Merkle root recorded on chain for its batch.'
          : 'The metadata was changed after minting: it no longer matches the Merkle root recorded on chain.',
    };
  } else {
    metadata = {
      name: 'metadata',
      passed: true,
      detail: `The metadata (hash ${short(i.recomputedHash)}) is proven against its batch's Merkle root on chain.`,
    };
  }

  const notBurned: Check =
    burned || i.status === 'burned'
      ? {
          name: 'not_burned',
          passed: false,
          detail: burnedDetail(burned ? { tx: i.move!.transactionHash, block: i.move!.blockNumber } : null),
        }
      : {
          name: 'not_burned',
          passed: true,
          detail: `Token #${tokenId} exists on chain: it has not been burned.`,
        };

  return { checks: [onChain, holder, metadata, notBurned], chainOwner, chainBurned: burned };
}

/** One fact of a token as the index and the chain state it (the re-check's comparison). */
export interface FactComparison {
  fact: 'owner' | 'burned' | 'batch';
  indexed: string;
  chain: string;
  agree: boolean;
}

/**
 * The index's facts of a token against the chain's own answers at the index's checkpoint: its
 * owner (`null` from the chain: the token does not exist), whether it is burned, and its batch
 * (the chain's record of the certificate's batch key: first token, quantity, holder and the
 * anchored high bits of the root, which the indexed BatchMinted's root must match). A fact the
 * chain could not answer (`undefined`) is not compared.
 */
export function compareFacts(
  indexed: { batch: IndexedBatchFacts | null; move: IndexedMove | null },
  chain: {
    owner?: string | null;
    batch?: { firstTokenId: bigint; quantity: bigint; to: string; merkleRootHigh: string } | null;
  },
): FactComparison[] {
  const out: FactComparison[] = [];
  const burned = indexed.move?.burned === true;
  const indexedOwner =
    indexed.batch && !burned ? getAddress(indexed.move?.owner ?? indexed.batch.holder) : null;
  if (chain.owner !== undefined) {
    const chainOwner = chain.owner === null ? null : getAddress(chain.owner);
    out.push({
      fact: 'burned',
      indexed: String(burned),
      chain: String(chainOwner === null),
      agree: burned === (chainOwner === null),
    });
    if (!burned && chainOwner !== null)
      out.push({
        fact: 'owner',
        indexed: indexedOwner ?? 'none',
        chain: chainOwner,
        agree: indexedOwner === chainOwner,
      });
  }
  if (chain.batch !== undefined) {
    const b = indexed.batch;
    const describe = (x: { firstTokenId: bigint; quantity: bigint; to: string }, root: string) =>
      `#${x.firstTokenId}+${x.quantity} to ${getAddress(x.to)}, root ${root}`;
    const c = chain.batch;
    const rootHigh = (root: string) =>
      `0x${(BigInt(root) & ~((1n << 48n) - 1n)).toString(16).padStart(64, '0')}`;
    const agree =
      b !== null &&
      c !== null &&
      b.firstTokenId === c.firstTokenId &&
      b.quantity === c.quantity &&
      same(b.holder, c.to) &&
      BigInt(rootHigh(b.merkleRoot)) === BigInt(c.merkleRootHigh);
    out.push({
      fact: 'batch',
      indexed: b ? describe({ ...b, to: b.holder }, rootHigh(b.merkleRoot)) : 'none',
      chain: c ? describe(c, `0x${BigInt(c.merkleRootHigh).toString(16).padStart(64, '0')}`) : 'none',
      agree,
    });
  }
  return out;
}
