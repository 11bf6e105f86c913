// SQL of the chain index (migration 3101): the batches and token moves a range of logs
// established, written in the indexer's transaction (the one advancing its checkpoint), and
// idempotent: a batch is one row per first token id, and a token's row only moves forward in
// (block, log index), so re-scanning a range changes nothing.
import type { Queryable } from '@hallmark/kit';
import type { ChainFacts } from './domain.js';

export class ChainIndexStore {
  /** `contract` is kept lowercase: the index's key. */
  readonly contract: string;

  constructor(contractAddress: string) {
    this.contract = contractAddress.toLowerCase();
  }

  /** Records the facts of one range in the caller's transaction. */
  async record(tx: Queryable, facts: ChainFacts): Promise<void> {
    const { batches, moves } = facts;
    if (batches.length > 0) {
      await tx.query(
        `INSERT INTO chain_batches (contract, first_token_id, quantity, batch_key, merkle_root, holder,
           transaction_hash, block_number, mint_events)
         SELECT $1, * FROM unnest($2::numeric[], $3::bigint[], $4::text[], $5::text[], $6::text[],
           $7::text[], $8::bigint[], $9::text[])
         ON CONFLICT (contract, first_token_id) DO NOTHING`,
        [
          this.contract,
          batches.map((b) => b.firstTokenId.toString()),
          batches.map((b) => b.quantity.toString()),
          batches.map((b) => b.batchKey),
          batches.map((b) => b.merkleRoot),
          batches.map((b) => b.holder),
          batches.map((b) => b.transactionHash),
          batches.map((b) => b.blockNumber),
          batches.map((b) => b.mintEvents),
        ],
      );
    }
    if (moves.length > 0) {
      await tx.query(
        `INSERT INTO chain_tokens AS t (contract, token_id, owner, burned, transaction_hash, block_number, log_index)
         SELECT $1, * FROM unnest($2::numeric[], $3::text[], $4::boolean[], $5::text[], $6::bigint[], $7::int[])
         ON CONFLICT (contract, token_id) DO UPDATE SET owner = EXCLUDED.owner, burned = EXCLUDED.burned,
           transaction_hash = EXCLUDED.transaction_hash, block_number = EXCLUDED.block_number,
           log_index = EXCLUDED.log_index
         WHERE (EXCLUDED.block_number, EXCLUDED.log_index) > (t.block_number, t.log_index)`,
        [
          this.contract,
          moves.map((m) => m.tokenId.toString()),
          moves.map((m) => m.owner),
          moves.map((m) => m.burned),
          moves.map((m) => m.transactionHash),
          moves.map((m) => m.blockNumber),
          moves.map((m) => m.logIndex),
        ],
      );
    }
  }
}
