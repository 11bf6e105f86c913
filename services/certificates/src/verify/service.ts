// Public verification of a certificate: its database record checked against the chain, check by
// check, each with a reason a reader of the verification page understands. The chain facts come
// from the chain index (migration 3101, kept by the chain indexer from the contract's logs), so a
// verification is database reads and no RPC call; a certificate minted in blocks the index has
// not reached yet is checked against the chain itself (./chain-checks.ts). The checks on the
// index are ./domain.ts; the background re-check of the index against the chain is
// ./workers/recheck.ts. Chain failures make checks fail (with why); they never fail the call.
// A verification the caller asks to record is counted, and its certificate's document.verified
// leaves with the window's count (./verified-events.ts).
import { counter, invalidParam, notFound, type Pool } from '@hallmark/kit';
import { chainIndexKey, indexCovers } from '../domain/chain-index.js';
import { metadataHashOf, type CertificateRecord } from '../domain/certificate.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import { chainChecks, type VerifierChain } from './chain-checks.js';
import { indexedChecks, type ChainChecks, type Check } from './domain.js';
import { checkImage, type ImageCheckDeps, type ImageView } from './image.js';
import { BatchLeavesCache } from './batch-leaves.js';
import { VerifyStore } from './store.js';
import type { VerifiedEvents } from './verified-events.js';

export type { Check, CheckName } from './domain.js';
export type { VerifierChain } from './chain-checks.js';

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

export interface VerifierOptions {
  pool: Pool;
  store: CertificatesStore;
  /** The chain, when configured; without one every chain check fails with that reason. */
  chain: () => VerifierChain | null;
  /** Bound on each chain read (certificates the index does not cover yet). */
  chainTimeoutMs?: number;
  /** Archived images (issue 17): adds the image check when the metadata records a hash. */
  images?: ImageCheckDeps;
  /** Where recorded verifications are counted (document.verified per certificate per window). */
  events?: VerifiedEvents;
}

const verifications = counter(
  'hallmark_verifications_total',
  'Verifications by where their chain facts came from (index: the chain index; chain: RPC reads, for certificates the index does not cover yet; none: not minted or no chain)',
  ['source'],
);

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
  private readonly reads: VerifyStore;
  private readonly batches: BatchLeavesCache;

  constructor(private readonly opts: VerifierOptions) {
    this.reads = new VerifyStore(opts.pool);
    this.batches = new BatchLeavesCache(this.reads);
  }

  /**
   * Verifies a certificate by id (unknown or malformed: resource_not_found, from the store);
   * `recordEvent` counts it towards its certificate's next document.verified.
   */
  async verify(id: string, opts: { recordEvent?: boolean } = {}): Promise<Verification> {
    const readCert = await this.opts.store.getPublic(id);
    const c = readCert.certificate;
    const checks: Check[] = [
      { name: 'record_found', passed: true, detail: `Hallmark has a record of certificate ${c.id}.` },
    ];
    let chainOwner: string | null = null;
    let chainBurned = false;
    let merkleRoot: string | null | undefined;
    const chain = this.opts.chain();
    if (c.tokenId === null || c.transactionHash === null || c.blockNumber === null) {
      const why =
        c.status === 'pending'
          ? 'Not minted yet: the certificate is waiting for its blockchain transaction.'
          : 'The record has no blockchain reference.';
      for (const name of ['on_chain', 'holder', 'metadata', 'not_burned'] as const) {
        checks.push({ name, passed: false, detail: why });
      }
      verifications.inc({ source: 'none' });
    } else if (!chain) {
      for (const name of ['on_chain', 'holder', 'metadata', 'not_burned'] as const) {
        checks.push({ name, passed: false, detail: 'No blockchain is configured to check against.' });
      }
      verifications.inc({ source: 'none' });
    } else {
      const result = await this.chainChecksOf(chain, c);
      checks.push(...result.checks);
      chainOwner = result.chainOwner;
      chainBurned = result.chainBurned;
      merkleRoot = result.merkleRoot;
    }
    const image = this.opts.images ? await checkImage(this.opts.images, c) : { check: null, image: null };
    if (image.check) checks.push(image.check);
    const verified = checks.every((k) => k.passed);
    const burned = c.status === 'burned' || chainBurned;
    const verifiedAt = new Date();
    if (opts.recordEvent !== false)
      this.opts.events?.count({
        certificateId: c.id,
        enterpriseId: c.enterpriseId,
        livemode: c.livemode,
        verified,
        failedChecks: checks.filter((k) => !k.passed).map((k) => k.name),
        at: verifiedAt,
      });
    if (merkleRoot === undefined)
      merkleRoot = c.tokenId === null ? null : await this.reads.batchMerkleRoot(c.batchId);
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

  /**
   * The four chain checks: from the index when it covers the certificate, else from the chain;
   * with the batch's stored Merkle root when the index's read brought it along.
   */
  private async chainChecksOf(
    chain: VerifierChain,
    c: CertificateRecord,
  ): Promise<ChainChecks & { merkleRoot?: string | null }> {
    const tokenId = c.tokenId!;
    const hash = recomputeMetadataHash(c);
    const [batch, facts] = await Promise.all([
      this.batches.leaves(c.batchId),
      chain.chainId === undefined
        ? null
        : this.reads.tokenFacts(
            chain.contract.address,
            tokenId,
            chainIndexKey(chain.chainId, chain.contract.address),
            c.batchId,
          ),
    ]);
    if (facts && indexCovers(facts, tokenId, c.blockNumber!)) {
      verifications.inc({ source: 'index' });
      const judged = indexedChecks({
        tokenId,
        transactionHash: c.transactionHash!,
        blockNumber: c.blockNumber!,
        holderAddress: c.holderAddress,
        status: c.status,
        storedHash: c.metadataHash,
        recomputedHash: hash,
        provenRoot: await this.batches.rootWith(batch, c.position, hash),
        batchKey: batch.batchKey,
        batch: facts.batch!,
        move: facts.move,
      });
      return { ...judged, merkleRoot: facts.batchMerkleRoot };
    }
    verifications.inc({ source: 'chain' });
    const tree = await this.batches.tree(c.batchId, c.position, hash);
    return chainChecks(chain, c, { hash, tree, batchKey: batch.batchKey }, this.opts.chainTimeoutMs ?? 5000);
  }

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
