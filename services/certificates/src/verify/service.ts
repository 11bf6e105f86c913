// Public verification of a certificate: its database record checked against the chain, check by
// check, each with a reason a reader of the verification page understands. Chain failures make
// checks fail (with why); they never fail the call. Every verification of a known certificate
// records a document.verified event.
import { invalidParam, notFound, recordEvent, type Pool } from '@hallmark/kit';
import { getAddress, ZeroHash, zeroPadValue, toBeHex, type JsonRpcProvider } from 'ethers';
import {
  buildBatchTree,
  CertificatesContract,
  mintedRanges,
  receiptLogs,
  TRANSFER_TOPIC,
  type BatchTree,
} from '../chain/contract.js';
import { EVENT_SOURCE, metadataHashOf, type CertificateRecord } from '../domain/certificate.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import { checkImage, type ImageCheckDeps, type ImageView } from './image.js';
import { VerifyStore } from './store.js';

export type CheckName = 'record_found' | 'on_chain' | 'holder' | 'metadata' | 'not_burned' | 'image';

export interface Check {
  name: CheckName;
  passed: boolean;
  detail: string;
}

export interface Verification {
  read: CertificateRead;
  checks: Check[];
  verified: boolean;
  burned: boolean;
  verifiedAt: Date;
  chainOwner: string | null;
  image: ImageView | null;
  /** The batch's Merkle root, once minted (the page's technical details). */
  merkleRoot: string | null;
  /** The contract the chain checks read, when a chain is configured. */
  contractAddress: string | null;
  /** The id of the chain the checks read (decimal), when a chain is configured. */
  chainId: string | null;
}

export interface VerifierChain {
  provider: JsonRpcProvider;
  contract: CertificatesContract;
  /** The chain's id, as the verification reports it (the verification JSON's `chain.chainId`). */
  chainId?: bigint;
}

export interface VerifierOptions {
  pool: Pool;
  store: CertificatesStore;
  /** The chain, when configured; without one every chain check fails with that reason. */
  chain: () => VerifierChain | null;
  /** Bound on each chain read. */
  chainTimeoutMs?: number;
  /** Archived images (issue 17): adds the image check when the metadata records a hash. */
  images?: ImageCheckDeps;
}

const ZERO_TOPIC = ZeroHash;
const TREE_CACHE_SIZE = 64;

class ChainTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChainTimeout('the chain did not answer in time')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A chain read as a value: the result, the token being gone, or the chain failing. */
type Read<T> = { ok: true; value: T } | { ok: false; nonexistent: boolean; reason: string };

async function read<T>(p: () => Promise<T>, ms: number): Promise<Read<T>> {
  try {
    return { ok: true, value: await withTimeout(p(), ms) };
  } catch (err) {
    const name = CertificatesContract.revertName(err);
    if (name === 'ERC721NonexistentToken') return { ok: false, nonexistent: true, reason: name };
    const reason =
      err instanceof ChainTimeout
        ? 'the chain did not answer in time'
        : name
          ? `the contract refused (${name})`
          : 'the chain could not be reached';
    return { ok: false, nonexistent: false, reason };
  }
}

const short = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

/**
 * The metadata hash of a stored certificate, recomputed exactly as MintBatch computed it:
 * keccak256 of the canonical JSON of {name, imageUrl, metadata}, where metadata is the stored
 * object without the fields the service adds after minting (`tokenId`, `warranty`).
 */
function recomputeMetadataHash(c: CertificateRecord): string {
  const { tokenId: _tokenId, warranty: _warranty, ...metadata } = c.metadata;
  return metadataHashOf(c.name, c.imageUrl, metadata);
}

export class Verifier {
  private readonly trees = new Map<string, { hashes: string[]; tree: BatchTree; batchKey: string | null }>();

  private readonly reads: VerifyStore;

  constructor(private readonly opts: VerifierOptions) {
    this.reads = new VerifyStore(opts.pool);
  }

  private get timeoutMs() {
    return this.opts.chainTimeoutMs ?? 5000;
  }

  /**
   * Verifies a certificate by id (unknown or malformed: resource_not_found, from the store),
   * recording a document.verified event unless `recordEvent` is false.
   */
  async verify(id: string, opts: { recordEvent?: boolean } = {}): Promise<Verification> {
    const readCert = await this.opts.store.getPublic(id);
    const c = readCert.certificate;
    const checks: Check[] = [
      { name: 'record_found', passed: true, detail: `Hallmark has a record of certificate ${c.id}.` },
    ];
    let chainOwner: string | null = null;
    let chainBurned = false;
    const chain = this.opts.chain();
    if (c.tokenId === null || c.transactionHash === null || c.blockNumber === null) {
      const why =
        c.status === 'pending'
          ? 'Not minted yet: the certificate is waiting for its blockchain transaction.'
          : 'The record has no blockchain reference.';
      for (const name of ['on_chain', 'holder', 'metadata', 'not_burned'] as const) {
        checks.push({ name, passed: false, detail: why });
      }
    } else if (!chain) {
      for (const name of ['on_chain', 'holder', 'metadata', 'not_burned'] as const) {
        checks.push({ name, passed: false, detail: 'No blockchain is configured to check against.' });
      }
    } else {
      const tokenId = c.tokenId;
      const [onChain, owner, metadata, exists] = await Promise.all([
        this.checkOnChain(chain, c, tokenId),
        read(() => chain.contract.ownerOf(tokenId), this.timeoutMs),
        this.checkMetadata(chain, c, tokenId),
        read(() => chain.contract.exists(tokenId), this.timeoutMs),
      ]);
      checks.push(onChain);
      chainBurned = (exists.ok && !exists.value) || (!owner.ok && owner.nonexistent);
      if (owner.ok) {
        chainOwner = getAddress(owner.value);
        const matches = chainOwner === getAddress(c.holderAddress);
        checks.push({
          name: 'holder',
          passed: matches,
          detail: matches
            ? `The chain reports the recorded holder ${chainOwner} as the token's owner.`
            : `The chain reports ${chainOwner} as the owner, but the record says ${getAddress(c.holderAddress)}.`,
        });
      } else {
        checks.push({
          name: 'holder',
          passed: false,
          detail: owner.nonexistent
            ? 'The token no longer exists on chain, so it has no holder.'
            : `Could not read the token's owner: ${owner.reason}.`,
        });
      }
      checks.push(metadata);
      checks.push(await this.checkNotBurned(chain, c, tokenId, exists, chainBurned));
    }
    const image = this.opts.images ? await checkImage(this.opts.images, c) : { check: null, image: null };
    if (image.check) checks.push(image.check);
    const verified = checks.every((k) => k.passed);
    const burned = c.status === 'burned' || chainBurned;
    const verifiedAt = new Date();
    if (opts.recordEvent !== false)
      await recordEvent(this.opts.pool, EVENT_SOURCE, {
        type: 'document.verified',
        data: {
          object: {
            id: c.id,
            verified_at: verifiedAt.toISOString(),
            result: verified ? 'verified' : 'failed',
            failed_checks: checks.filter((k) => !k.passed).map((k) => k.name),
          },
        },
        enterpriseId: c.enterpriseId,
        livemode: c.livemode,
      });
    const merkleRoot = c.tokenId === null ? null : await this.reads.batchMerkleRoot(c.batchId);
    return {
      read: readCert,
      checks,
      verified,
      burned,
      verifiedAt,
      chainOwner,
      image: image.image,
      merkleRoot,
      contractAddress: chain?.contract.address ?? null,
      chainId: chain?.chainId !== undefined ? chain.chainId.toString() : null,
    };
  }

  /** The recorded transaction exists, succeeded, sits in the recorded block and minted this token. */
  private async checkOnChain(chain: VerifierChain, c: CertificateRecord, tokenId: bigint): Promise<Check> {
    const name = 'on_chain';
    const tx = c.transactionHash!;
    const r = await read(() => chain.provider.getTransactionReceipt(tx), this.timeoutMs);
    if (!r.ok)
      return { name, passed: false, detail: `Could not read transaction ${short(tx)}: ${r.reason}.` };
    const receipt = r.value;
    if (!receipt) return { name, passed: false, detail: `The chain has no transaction ${short(tx)}.` };
    if (receipt.status !== 1) {
      return { name, passed: false, detail: `Transaction ${short(tx)} reverted: it minted nothing.` };
    }
    if (receipt.blockNumber !== c.blockNumber) {
      return {
        name,
        passed: false,
        detail: `Transaction ${short(tx)} is in block ${receipt.blockNumber}, but the record says block ${c.blockNumber}.`,
      };
    }
    const logs = receiptLogs(receipt);
    const batch = chain.contract
      .parseBatchMinted(logs)
      .find((e) => e.firstTokenId <= tokenId && tokenId < e.firstTokenId + e.quantity);
    // the token's own mint event: the batch's ERC-2309 ConsecutiveTransfer, or its Transfer from zero
    const mint = mintedRanges(logs, chain.contract.address).find(
      (m) => m.firstTokenId <= tokenId && tokenId <= m.lastTokenId && m.to === batch?.to,
    );
    if (!batch || !mint) {
      return {
        name,
        passed: false,
        detail: `Transaction ${short(tx)} did not mint token #${tokenId} on this certificate's contract.`,
      };
    }
    return {
      name,
      passed: true,
      detail: `Token #${tokenId} was minted in transaction ${short(tx)}, block ${receipt.blockNumber} (a batch of ${batch.quantity} from #${batch.firstTokenId}${mint.firstTokenId === mint.lastTokenId ? '' : ', announced by one ERC-2309 ConsecutiveTransfer'}).`,
    };
  }

  /**
   * The batch's tree over its certificates' metadata hashes, this certificate's recomputed, and the
   * batch's on-chain key (which names the batch to the contract's proof).
   */
  private async treeFor(
    c: CertificateRecord,
    leafHash: string,
  ): Promise<{ tree: BatchTree; batchKey: string | null }> {
    let cached = this.trees.get(c.batchId);
    if (!cached) {
      const [hashes, batchKey] = await Promise.all([
        this.reads.batchMetadataHashes(c.batchId),
        this.reads.batchKey(c.batchId),
      ]);
      cached = { hashes, tree: buildBatchTree(hashes), batchKey };
      this.trees.set(c.batchId, cached);
      if (this.trees.size > TREE_CACHE_SIZE) this.trees.delete(this.trees.keys().next().value!);
    }
    if (cached.hashes[c.position] === leafHash) return cached;
    const hashes = [...cached.hashes];
    hashes[c.position] = leafHash;
    return { tree: buildBatchTree(hashes), batchKey: cached.batchKey };
  }

  /** The recomputed metadata hash is proven against the batch's Merkle root on chain. */
  private async checkMetadata(chain: VerifierChain, c: CertificateRecord, tokenId: bigint): Promise<Check> {
    const name = 'metadata';
    const hash = recomputeMetadataHash(c);
    const { tree, batchKey } = await this.treeFor(c, hash);
    if (!batchKey) return { name, passed: false, detail: 'The record has no on-chain batch key.' };
    const proof = tree.proof(c.position);
    const r = await read(
      () => chain.contract.verifyCertificate(tokenId, batchKey, hash, proof),
      this.timeoutMs,
    );
    if (!r.ok) {
      return {
        name,
        passed: false,
        detail: r.nonexistent
          ? 'The token no longer exists on chain, so its metadata cannot be proven.'
          : `Could not prove the metadata: ${r.reason}.`,
      };
    }
    if (!r.value) {
      return {
        name,
        passed: false,
        detail:
          hash === c.metadataHash
            ? 'The metadata does not match the Merkle root recorded on chain for its batch.'
            : 'The metadata was changed after minting: it no longer matches the Merkle root recorded on chain.',
      };
    }
    return {
      name,
      passed: true,
      detail: `The metadata (hash ${short(hash)}) is proven against its batch's Merkle root on chain.`,
    };
  }

  private async checkNotBurned(
    chain: VerifierChain,
    c: CertificateRecord,
    tokenId: bigint,
    exists: Read<boolean>,
    chainBurned: boolean,
  ): Promise<Check> {
    const name = 'not_burned';
    if (chainBurned || c.status === 'burned') {
      const burn = chainBurned ? await this.findBurn(chain, tokenId, c.blockNumber!) : null;
      return {
        name,
        passed: false,
        detail: burn
          ? `This certificate was burned (permanently destroyed) in transaction ${short(burn.tx)}, block ${burn.block}.`
          : 'This certificate was burned (permanently destroyed): its token no longer exists.',
      };
    }
    if (!exists.ok) return { name, passed: false, detail: `Could not check the token: ${exists.reason}.` };
    return { name, passed: true, detail: `Token #${tokenId} exists on chain: it has not been burned.` };
  }

  /** The burn of a token (its Transfer to the zero address), best effort. */
  private async findBurn(
    chain: VerifierChain,
    tokenId: bigint,
    fromBlock: number,
  ): Promise<{ tx: string; block: number } | null> {
    const r = await read(
      () =>
        chain.provider.getLogs({
          address: chain.contract.address,
          fromBlock,
          toBlock: 'latest',
          topics: [TRANSFER_TOPIC, null, ZERO_TOPIC, zeroPadValue(toBeHex(tokenId), 32)],
        }),
      this.timeoutMs,
    );
    const log = r.ok ? r.value[0] : undefined;
    return log ? { tx: log.transactionHash, block: log.blockNumber } : null;
  }

  /** The id of the certificate of a token, or null. */
  /** The public certificate of a token; unknown or burned (spec › Chain events) → not found. */
  async publicCertificateOfToken(tokenId: number): Promise<CertificateRead> {
    if (!Number.isSafeInteger(tokenId) || tokenId < 1) {
      throw invalidParam('token_id', 'token_id must be a positive integer.');
    }
    const id = await this.reads.certificateIdOfToken(BigInt(tokenId));
    if (!id) throw notFound('token', String(tokenId));
    const read = await this.opts.store.getPublic(id);
    if (read.certificate.status === 'burned') throw notFound('token', String(tokenId));
    return read;
  }
}
