// SQL of the chain index's re-check: which tokens to compare next (a cursor walking this
// contract's minted certificates by token id, in `chain_state`, plus every token with an open
// disagreement), and the disagreements (migration 3101) opened and resolved.
import type { Pool } from '@hallmark/kit';

export interface RecheckTarget {
  certificateId: string;
  tokenId: bigint;
  blockNumber: number;
  batchKey: string | null;
}

export interface Disagreement {
  certificateId: string;
  tokenId: bigint;
  fact: 'owner' | 'burned' | 'batch';
  indexed: string;
  chain: string;
}

export class RecheckStore {
  constructor(
    private readonly pool: Pool,
    private readonly contract: string,
  ) {}

  /** The next `limit` certificates after the cursor (from the start once it ran past the end). */
  async next(cursorKey: string, limit: number): Promise<RecheckTarget[]> {
    const { rows: cursor } = await this.pool.query<{ value: string }>(
      'SELECT value FROM chain_state WHERE key = $1',
      [cursorKey],
    );
    const after = cursor[0]?.value ?? '0';
    const pick = (from: string) =>
      this.pool.query<{ id: string; token_id: string; block_number: string; batch_key: string | null }>(
        `SELECT c.id, c.token_id, c.block_number, s.batch_key
         FROM certificates c JOIN chain_submissions s ON s.batch_id = c.batch_id
         WHERE lower(s.contract_address) = $1 AND c.token_id > $2::numeric AND c.status <> 'pending'
         ORDER BY c.token_id LIMIT $3`,
        [this.contract, from, limit],
      );
    let { rows } = await pick(after);
    if (rows.length === 0 && after !== '0') rows = (await pick('0')).rows;
    const last = rows.at(-1)?.token_id ?? '0';
    await this.pool.query(
      `INSERT INTO chain_state (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [cursorKey, last],
    );
    return rows.map((r) => ({
      certificateId: r.id,
      tokenId: BigInt(r.token_id),
      blockNumber: Number(r.block_number),
      batchKey: r.batch_key,
    }));
  }

  /** Certificates with an open disagreement (re-checked every pass until they agree again). */
  async open(): Promise<RecheckTarget[]> {
    const { rows } = await this.pool.query<{
      id: string;
      token_id: string;
      block_number: string;
      batch_key: string | null;
    }>(
      `SELECT DISTINCT c.id, c.token_id, c.block_number, s.batch_key
       FROM chain_index_disagreements d
       JOIN certificates c ON c.id = d.certificate_id
       JOIN chain_submissions s ON s.batch_id = c.batch_id
       WHERE d.contract = $1 AND d.resolved_at IS NULL`,
      [this.contract],
    );
    return rows.map((r) => ({
      certificateId: r.id,
      tokenId: BigInt(r.token_id),
      blockNumber: Number(r.block_number),
      batchKey: r.batch_key,
    }));
  }

  /** Opens a disagreement; false when one is open already for the token and fact. */
  async flag(d: Disagreement): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO chain_index_disagreements (contract, token_id, certificate_id, fact, indexed, chain)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (contract, token_id, fact) WHERE resolved_at IS NULL DO NOTHING`,
      [this.contract, d.tokenId.toString(), d.certificateId, d.fact, d.indexed, d.chain],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Resolves the open disagreement of a token and fact, if any; true when one was open. */
  async resolve(tokenId: bigint, fact: Disagreement['fact']): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE chain_index_disagreements SET resolved_at = now()
       WHERE contract = $1 AND token_id = $2 AND fact = $3 AND resolved_at IS NULL`,
      [this.contract, tokenId.toString(), fact],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Open disagreements of this contract (the gauge operators are alerted on). */
  async countOpen(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chain_index_disagreements WHERE contract = $1 AND resolved_at IS NULL',
      [this.contract],
    );
    return rows[0]!.n;
  }
}
