// SQL of the verifier's reads: a batch's stored metadata hashes (its Merkle leaves, in position
// order) and on-chain key, and the certificate of a token.
import type { Pool } from '@hallmark/kit';

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

  /** The id of the certificate of a token, or null. */
  async certificateIdOfToken(tokenId: bigint): Promise<string | null> {
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM certificates WHERE token_id = $1',
      [tokenId.toString()],
    );
    return rows[0]?.id ?? null;
  }
}
