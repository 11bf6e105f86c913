// SQL of the verifier's reads: a batch's stored metadata hashes (its Merkle leaves, in position
// order) and on-chain key, the certificate of a token, and what the chain index knows of a token.
import type { Pool } from '@hallmark/kit';
import type { TokenFacts } from '../domain/chain-index.js';

interface FactsRow {
  checkpoint: string | null;
  our_root: string | null;
  first_token_id: string | null;
  quantity: string;
  batch_key: string;
  merkle_root: string;
  holder: string;
  transaction_hash: string;
  block_number: string;
  mint_events: 'erc2309' | 'per-token' | 'missing';
  owner: string | null;
  burned: boolean;
  moved_tx: string;
  moved_block: string;
}

export class VerifyStore {
  constructor(private readonly pool: Pool) {}

  /** The batch's certificates' metadata hashes in position order (the batch tree's leaves). */
  async batchMetadataHashes(batchId: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ metadata_hash: string }>(
      'SELECT metadata_hash FROM certificates WHERE batch_id = $1 ORDER BY position',
      [batchId],
    );
    return rows.map((r) => r.metadata_hash);
  }

  /** The batch's on-chain key (its idempotency record on chain, which anchors its Merkle root), or null. */
  async batchKey(batchId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ batch_key: string }>(
      'SELECT batch_key FROM chain_submissions WHERE batch_id = $1',
      [batchId],
    );
    return rows[0]?.batch_key ?? null;
  }

  /** The Merkle root the batch was minted with (0x…), or null. */
  async batchMerkleRoot(batchId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ merkle_root: string }>(
      'SELECT merkle_root FROM certificate_batches WHERE id = $1',
      [batchId],
    );
    return rows[0]?.merkle_root ?? null;
  }

  /**
   * What the chain index knows of a token (one statement): the indexer's checkpoint, the batch
   * whose range starts at or before it (the caller checks it covers the token) and its last move;
   * with `batchId`, also the Merkle root that batch was minted with (`batchMerkleRoot`'s answer).
   */
  async tokenFacts(
    contract: string,
    tokenId: bigint,
    checkpointKey: string,
    batchId = '',
  ): Promise<TokenFacts & { batchMerkleRoot: string | null }> {
    const { rows } = await this.pool.query<FactsRow>({
      name: 'verify_token_facts',
      text: `SELECT (SELECT value FROM chain_state WHERE key = $3) AS checkpoint,
               (SELECT merkle_root FROM certificate_batches WHERE id = $4) AS our_root,
               b.first_token_id, b.quantity, b.batch_key, b.merkle_root, b.holder, b.transaction_hash,
               b.block_number, b.mint_events, t.owner, t.burned, t.transaction_hash AS moved_tx,
               t.block_number AS moved_block
             FROM (SELECT 1) one
             LEFT JOIN LATERAL (SELECT * FROM chain_batches WHERE contract = $1 AND first_token_id <= $2
               ORDER BY first_token_id DESC LIMIT 1) b ON true
             LEFT JOIN chain_tokens t ON t.contract = $1 AND t.token_id = $2`,
      values: [contract.toLowerCase(), tokenId.toString(), checkpointKey, batchId],
    });
    const r = rows[0]!;
    return {
      checkpoint: r.checkpoint === null ? null : Number(r.checkpoint),
      batchMerkleRoot: r.our_root,
      batch:
        r.first_token_id === null
          ? null
          : {
              firstTokenId: BigInt(r.first_token_id),
              quantity: BigInt(r.quantity),
              batchKey: r.batch_key,
              merkleRoot: r.merkle_root,
              holder: r.holder,
              transactionHash: r.transaction_hash,
              blockNumber: Number(r.block_number),
              mintEvents: r.mint_events,
            },
      move:
        r.owner === null
          ? null
          : {
              owner: r.owner,
              burned: r.burned,
              transactionHash: r.moved_tx,
              blockNumber: Number(r.moved_block),
            },
    };
  }

  /** The id of the certificate of a token, or null. */
  async certificateIdOfToken(tokenId: bigint): Promise<string | null> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM certificates WHERE token_id = $1',
      [tokenId.toString()],
    );
    return rows[0]?.id ?? null;
  }
}
