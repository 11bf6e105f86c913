// SQL of `chain_submissions` (migrations 0001 and 0501): the relayer's record of each batch's
// mintBatch transaction, and the journal its signings, fee bumps and broadcasts are persisted in
// before anything is sent.
import type { Pool, Queryable } from '@hallmark/kit';
import { submissionFromRow, type Submission, type SubmissionRow } from './submission.js';
import type { TxJournal } from './tx-sender.js';

const SUBMISSION_SELECT = `SELECT s.*, b.holder_address, b.quantity, b.merkle_root, b.transfer_events,
    (extract(epoch FROM now() - s.sent_at) * 1000)::float8 AS sent_age_ms
  FROM chain_submissions s JOIN certificate_batches b ON b.id = s.batch_id`;

export class SubmissionStore implements TxJournal {
  constructor(private readonly pool: Pool) {}

  /**
   * How many submissions on `contract` are in each open state (metrics): those of `o.signer`;
   * with `adoptOrphans` (signer 1) also the unclaimed ones and those of signers not in `peers`.
   */
  async openCounts(
    contract: string,
    o: { signer: string; peers: string[]; adoptOrphans: boolean },
  ): Promise<Record<'pending' | 'signed' | 'sent', number>> {
    const { rows } = await this.pool.query<{ status: 'pending' | 'signed' | 'sent'; n: number }>(
      `SELECT status, count(*)::int AS n FROM chain_submissions
       WHERE status IN ('pending', 'signed', 'sent') AND lower(contract_address) = lower($1)
         AND (lower(signer) = lower($2) OR ($3 AND (signer IS NULL OR lower(signer) <> ALL($4::text[]))))
       GROUP BY status`,
      [contract, o.signer, o.adoptOrphans, o.peers],
    );
    const out = { pending: 0, signed: 0, sent: 0 };
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  /**
   * Up to `limit` open submissions for `signer` to drive, none of `except`, oldest first: its
   * own (and, with `adoptOrphans`, those signed by an address not among `peers`), then
   * unclaimed ones it claims now (`signer` set; SKIP LOCKED: two signers never claim one).
   */
  async forSigner(
    contract: string,
    o: { signer: string; peers: string[]; adoptOrphans: boolean; limit: number; except: string[] },
  ): Promise<Submission[]> {
    const { rows } = await this.pool.query<SubmissionRow>(
      `${SUBMISSION_SELECT} WHERE s.status IN ('pending', 'signed', 'sent') AND lower(s.contract_address) = lower($1)
         AND (lower(s.signer) = lower($2) OR ($3 AND lower(s.signer) <> ALL($4::text[])))
         AND NOT (s.id::text = ANY($5::text[]))
       ORDER BY s.id LIMIT $6`,
      [contract, o.signer, o.adoptOrphans, o.peers, o.except, o.limit],
    );
    const want = o.limit - rows.length;
    if (want <= 0) return rows.map(submissionFromRow);
    const { rows: claimed } = await this.pool.query<SubmissionRow>(
      `WITH claimed AS (
         UPDATE chain_submissions SET signer = $2
         WHERE id IN (SELECT id FROM chain_submissions
                      WHERE status = 'pending' AND signer IS NULL AND lower(contract_address) = lower($1)
                      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *)
       SELECT s.*, b.holder_address, b.quantity, b.merkle_root, b.transfer_events, NULL::float8 AS sent_age_ms
       FROM claimed s JOIN certificate_batches b ON b.id = s.batch_id ORDER BY s.id`,
      [contract, o.signer, want],
    );
    return [...rows, ...claimed].map(submissionFromRow);
  }

  async byBatch(batchId: string): Promise<Submission | undefined> {
    const { rows } = await this.pool.query<SubmissionRow>(`${SUBMISSION_SELECT} WHERE s.batch_id = $1`, [
      batchId,
    ]);
    return rows[0] ? submissionFromRow(rows[0]) : undefined;
  }

  async signed(id: string, s: { signer: string; nonce: number; raw: string; hash: string }): Promise<void> {
    // A re-signing (the old nonce went elsewhere) keeps the old hash with the others.
    await this.pool.query(
      `UPDATE chain_submissions SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
         replaced_hashes = CASE WHEN tx_hash IS NULL THEN replaced_hashes
                                ELSE array_append(replaced_hashes, tx_hash) END,
         sent_at = NULL, attempts = attempts + 1, last_error = NULL
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, s.signer, s.nonce, s.raw, s.hash],
    );
  }

  async replaced(id: string, prevHash: string, raw: string, hash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE chain_submissions SET status = 'signed', raw_tx = $3, tx_hash = $4,
         replaced_hashes = array_append(replaced_hashes, tx_hash), sent_at = NULL, attempts = attempts + 1
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'sent')`,
      [id, prevHash, raw, hash],
    );
    return (rowCount ?? 0) > 0;
  }

  async sent(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE chain_submissions SET status = 'sent', sent_at = COALESCE(sent_at, now())
       WHERE id = $1 AND status IN ('signed', 'sent')`,
      [id],
    );
  }

  /**
   * `confirmed` with the mined hash as `tx_hash` (when that was an earlier one, the current one
   * joins the replaced hashes in its place); false when it was confirmed already.
   */
  async confirm(
    tx: Queryable,
    id: string,
    c: { firstTokenId: bigint; txHash: string; blockNumber: number },
  ): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE chain_submissions SET status = 'confirmed', first_token_id = $2, tx_hash = $3, block_number = $4,
         replaced_hashes = CASE WHEN tx_hash IS NULL OR tx_hash = $3 THEN replaced_hashes
                                ELSE array_append(array_remove(replaced_hashes, $3), tx_hash) END,
         confirmed_at = now(), last_error = NULL
       WHERE id = $1 AND status <> 'confirmed'`,
      [id, c.firstTokenId.toString(), c.txHash, c.blockNumber],
    );
    return (rowCount ?? 0) > 0;
  }

  async fail(tx: Queryable, id: string, reason: string, blockNumber: number | null): Promise<void> {
    await tx.query(
      `UPDATE chain_submissions SET status = 'failed', last_error = $2, block_number = $3
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, reason, blockNumber],
    );
  }

  async noteError(id: string, message: string): Promise<void> {
    await this.pool.query('UPDATE chain_submissions SET last_error = $2 WHERE id = $1', [
      id,
      message.slice(0, 1000),
    ]);
  }
}
