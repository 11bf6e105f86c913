// SQL of the burn indexer: its checkpoint in `chain_state`, which token ids are certificates of a
// contract, and a burn recorded once (status, provenance, certificate.burned, the credential's
// revocation bit) in the caller's transaction.
import { recordEvents, type Pool, type Queryable } from '@hallmark/kit';
import { ZeroAddress } from 'ethers';
import { certificateFromRow, type CertificateRow } from '../certificate-rows.js';
import { certificateEventObject, EVENT_SOURCE } from '../domain/certificate.js';
import { revokeCredential } from '../credentials/store.js';

export interface Burn {
  tokenId: bigint;
  from: string;
  transactionHash: string;
  blockNumber: number;
  logIndex: number;
}

export class BurnStore {
  constructor(
    private readonly pool: Pool,
    private readonly contractAddress: string,
  ) {}

  /** The checkpoint under `key`; `forUpdate` locks it (in a transaction). */
  async checkpoint(key: string, db: Queryable = this.pool, forUpdate = false): Promise<number | null> {
    const { rows } = await db.query<{ value: string }>(
      `SELECT value FROM chain_state WHERE key = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [key],
    );
    return rows[0] ? Number(rows[0].value) : null;
  }

  async setCheckpoint(tx: Queryable, key: string, block: number): Promise<void> {
    await tx.query(
      `INSERT INTO chain_state (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [key, String(block)],
    );
  }

  /** Which of `tokenIds` are certificates of this contract. */
  async knownTokens(tokenIds: readonly bigint[]): Promise<Set<bigint>> {
    const { rows } = await this.pool.query<{ token_id: string }>(
      `SELECT c.token_id FROM certificates c JOIN chain_submissions s ON s.batch_id = c.batch_id
       WHERE lower(s.contract_address) = lower($1) AND c.token_id = ANY($2::numeric[])`,
      [this.contractAddress, tokenIds.map(String)],
    );
    return new Set(rows.map((r) => BigInt(r.token_id)));
  }

  /** Whether a batch of this contract is still being sent or confirmed. */
  async mintingOpen(): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM chain_submissions
       WHERE lower(contract_address) = lower($1) AND status IN ('pending', 'signed', 'sent') LIMIT 1`,
      [this.contractAddress],
    );
    return rows.length > 0;
  }

  /**
   * Marks the token's certificate burned with a `burned` provenance entry and certificate.burned,
   * once: false when it is not a minted certificate of this contract or was recorded already.
   */
  async recordBurn(tx: Queryable, b: Burn, actor: string): Promise<boolean> {
    const { rows } = await tx.query<CertificateRow>(
      `UPDATE certificates c SET status = 'burned', updated_at = now()
       FROM chain_submissions s
       WHERE s.batch_id = c.batch_id AND lower(s.contract_address) = lower($1)
         AND c.token_id = $2::numeric AND c.status = 'minted'
       RETURNING c.*`,
      [this.contractAddress, b.tokenId.toString()],
    );
    const row = rows[0];
    if (!row) return false;
    const { rowCount } = await tx.query(
      `INSERT INTO provenance (certificate_id, kind, actor, from_address, to_address, transaction_hash, block_number)
       VALUES ($1, 'burned', $2, $3, $4, $5, $6)
       ON CONFLICT (certificate_id) WHERE kind = 'burned' DO NOTHING`,
      [row.id, actor, b.from, ZeroAddress, b.transactionHash, b.blockNumber],
    );
    if (rowCount === 0) return false;
    // Its credential's revocation bit, in this transaction (the served status list follows).
    await revokeCredential(tx, row.id);
    const cert = certificateFromRow(row);
    await recordEvents(tx, EVENT_SOURCE, [
      {
        type: 'certificate.burned' as const,
        data: {
          object: {
            ...certificateEventObject(cert),
            status: 'burned' as const,
            tokenId: Number(cert.tokenId),
          },
          burn: { transactionHash: b.transactionHash, blockNumber: b.blockNumber, actor, from: b.from },
        },
        enterpriseId: cert.enterpriseId,
        livemode: cert.livemode,
      },
    ]);
    return true;
  }
}
