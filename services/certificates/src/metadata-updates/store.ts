// SQL of the ERC-4906 queue (migration 3311): `metadata_updates`, written by any slice in its own
// transaction through `queueMetadataUpdate`, and `metadata_announcements`, the relayer's record
// of each announceMetadataUpdate transaction and the journal its signings, fee bumps and
// broadcasts are persisted in before anything is sent (like chain_submissions for mints).
import { transaction, type Pool, type Queryable } from '@hallmark/kit';
import type { TokenRange } from '../chain/contract.js';
import type { TxJournal, TxState } from '../chain/tx-sender.js';
import {
  coalesce,
  MAX_UPDATES_PER_ANNOUNCEMENT,
  rangesFromJson,
  rangesToJson,
  type MetadataUpdateReason,
} from './domain.js';

/** What changed: one certificate (minted or not yet), one token, or a range of tokens. */
export type MetadataUpdateTarget =
  { certificateId: string } | { tokenId: bigint } | { fromTokenId: bigint; toTokenId: bigint };

/**
 * Queues an ERC-4906 announcement of `target`'s metadata change, in the caller's transaction `tx`
 * (so the change and its announcement commit together, or neither). The relayer announces it on
 * chain in a later pass; a certificate not minted yet is announced once its token exists.
 */
export async function queueMetadataUpdate(
  tx: Queryable,
  target: MetadataUpdateTarget,
  reason: MetadataUpdateReason,
): Promise<void> {
  if ('certificateId' in target) {
    await tx.query(
      `INSERT INTO metadata_updates (enterprise_id, certificate_id, reason)
       SELECT enterprise_id, id, $2 FROM certificates WHERE id = $1`,
      [target.certificateId, reason],
    );
    return;
  }
  const [from, to] =
    'tokenId' in target ? [target.tokenId, target.tokenId] : [target.fromTokenId, target.toTokenId];
  await tx.query(`INSERT INTO metadata_updates (from_token_id, to_token_id, reason) VALUES ($1, $2, $3)`, [
    from.toString(),
    to.toString(),
    reason,
  ]);
}

export type AnnouncementStatus = 'pending' | 'signed' | 'sent' | 'confirmed' | 'failed';

/** One announcement as the announcer drives it; its signing state is a TxState. */
export interface Announcement extends TxState {
  id: string;
  status: AnnouncementStatus;
  contractAddress: string;
  ranges: TokenRange[];
}

interface AnnouncementRow {
  id: string;
  contract_address: string;
  ranges: [string, string][];
  status: AnnouncementStatus;
  signer: string | null;
  nonce: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  replaced_hashes: string[];
  sent_age_ms: number | null;
}

const fromRow = (r: AnnouncementRow): Announcement => ({
  id: r.id,
  contractAddress: r.contract_address,
  ranges: rangesFromJson(r.ranges),
  status: r.status,
  signer: r.signer,
  nonce: r.nonce === null ? null : Number(r.nonce),
  rawTx: r.raw_tx,
  txHash: r.tx_hash,
  replacedHashes: r.replaced_hashes ?? [],
  sentAgeMs: r.sent_age_ms,
});

const SELECT = `SELECT *, (extract(epoch FROM now() - sent_at) * 1000)::float8 AS sent_age_ms
  FROM metadata_announcements`;

export class MetadataUpdateStore implements TxJournal {
  constructor(private readonly pool: Pool) {}

  /** Announcements on `contract` not final yet, oldest first. */
  async open(contract: string): Promise<Announcement[]> {
    const { rows } = await this.pool.query<AnnouncementRow>(
      `${SELECT} WHERE status IN ('pending', 'signed', 'sent') AND lower(contract_address) = lower($1)
       ORDER BY id`,
      [contract],
    );
    return rows.map(fromRow);
  }

  async byId(id: string): Promise<Announcement | undefined> {
    const { rows } = await this.pool.query<AnnouncementRow>(`${SELECT} WHERE id = $1`, [id]);
    return rows[0] && fromRow(rows[0]);
  }

  /**
   * Takes the queued updates whose tokens exist (oldest first, at most
   * MAX_UPDATES_PER_ANNOUNCEMENT) into a new `pending` announcement with their coalesced ranges,
   * in one transaction: an update is taken by exactly one announcement. Updates of certificates
   * whose batch failed (they will never have a token) are dropped. Undefined: nothing to announce.
   */
  async claim(contract: string): Promise<Announcement | undefined> {
    return transaction(this.pool, async (tx) => {
      await tx.query(
        `DELETE FROM metadata_updates u USING certificates c, certificate_batches b
         WHERE u.announcement_id IS NULL AND c.id = u.certificate_id AND b.id = c.batch_id
           AND b.status = 'failed'`,
      );
      const { rows } = await tx.query<{ id: string; from_id: string; to_id: string }>(
        `SELECT u.id, COALESCE(u.from_token_id, c.token_id)::text AS from_id,
                COALESCE(u.to_token_id, c.token_id)::text AS to_id
         FROM metadata_updates u LEFT JOIN certificates c ON c.id = u.certificate_id
         WHERE u.announcement_id IS NULL
           AND COALESCE(u.from_token_id, c.token_id) IS NOT NULL
         ORDER BY u.id LIMIT $1 FOR UPDATE OF u SKIP LOCKED`,
        [MAX_UPDATES_PER_ANNOUNCEMENT],
      );
      if (rows.length === 0) return undefined;
      const ranges = coalesce(rows.map((r) => ({ from: BigInt(r.from_id), to: BigInt(r.to_id) })));
      const { rows: created } = await tx.query<AnnouncementRow>(
        `INSERT INTO metadata_announcements (contract_address, ranges) VALUES ($1, $2)
         RETURNING *, NULL::float8 AS sent_age_ms`,
        [contract, JSON.stringify(rangesToJson(ranges))],
      );
      await tx.query('UPDATE metadata_updates SET announcement_id = $1 WHERE id = ANY($2::bigint[])', [
        created[0]!.id,
        rows.map((r) => r.id),
      ]);
      return fromRow(created[0]!);
    });
  }

  async signed(id: string, s: { signer: string; nonce: number; raw: string; hash: string }): Promise<void> {
    await this.pool.query(
      `UPDATE metadata_announcements SET status = 'signed', signer = $2, nonce = $3, raw_tx = $4, tx_hash = $5,
         replaced_hashes = CASE WHEN tx_hash IS NULL THEN replaced_hashes
                                ELSE array_append(replaced_hashes, tx_hash) END,
         sent_at = NULL, attempts = attempts + 1, last_error = NULL
       WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
      [id, s.signer, s.nonce, s.raw, s.hash],
    );
  }

  async replaced(id: string, prevHash: string, raw: string, hash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE metadata_announcements SET status = 'signed', raw_tx = $3, tx_hash = $4,
         replaced_hashes = array_append(replaced_hashes, tx_hash), sent_at = NULL, attempts = attempts + 1
       WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'sent')`,
      [id, prevHash, raw, hash],
    );
    return (rowCount ?? 0) > 0;
  }

  async sent(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE metadata_announcements SET status = 'sent', sent_at = COALESCE(sent_at, now())
       WHERE id = $1 AND status IN ('signed', 'sent')`,
      [id],
    );
  }

  /** `confirmed` with the mined hash (an earlier one of its hashes, after a fee bump, is fine). */
  async confirm(id: string, txHash: string, blockNumber: number): Promise<void> {
    await this.pool.query(
      `UPDATE metadata_announcements SET status = 'confirmed', block_number = $3, confirmed_at = now(),
         replaced_hashes = CASE WHEN tx_hash IS NULL OR tx_hash = $2 THEN replaced_hashes
                                ELSE array_append(array_remove(replaced_hashes, $2), tx_hash) END,
         tx_hash = $2, last_error = NULL
       WHERE id = $1 AND status <> 'confirmed'`,
      [id, txHash, blockNumber],
    );
  }

  /**
   * The announcement's transaction reverted: it is `failed` and its updates go back to the queue
   * (the next pass announces them again), so no update is lost.
   */
  async fail(id: string, reason: string, blockNumber: number | null): Promise<void> {
    await transaction(this.pool, async (tx) => {
      await tx.query(
        `UPDATE metadata_announcements SET status = 'failed', last_error = $2, block_number = $3
         WHERE id = $1 AND status IN ('pending', 'signed', 'sent')`,
        [id, reason, blockNumber],
      );
      await tx.query('UPDATE metadata_updates SET announcement_id = NULL WHERE announcement_id = $1', [id]);
    });
  }

  async noteError(id: string, message: string): Promise<void> {
    await this.pool.query('UPDATE metadata_announcements SET last_error = $2 WHERE id = $1', [
      id,
      message.slice(0, 1000),
    ]);
  }

  /** Updates not announced yet (queued, or in an announcement not confirmed): metrics and tests. */
  async backlog(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM metadata_updates u
       LEFT JOIN metadata_announcements a ON a.id = u.announcement_id
       WHERE a.id IS NULL OR a.status <> 'confirmed'`,
    );
    return rows[0]!.n;
  }
}
