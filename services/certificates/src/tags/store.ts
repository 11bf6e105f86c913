// All SQL of NFC tags (migration 3301): the enterprises' master keys (stored only encrypted,
// kit Encryptor), the tag registry and the taps. A tap's counter is taken under the tag's row
// lock, with its tap record and (for a replay) the clone event in the same transaction.
import {
  Encryptor,
  HallmarkError,
  notFound,
  recordEvent,
  transaction,
  type Pool,
  type PoolClient,
} from '@hallmark/kit';
import { newEvent } from '@hallmark/kit/events';
import { EVENT_SOURCE, type Scope } from '../domain/certificate.js';
import { tapDecision, type TagRecord } from './domain/tag.js';

interface TagRow {
  id: string;
  key_id: string;
  enterprise_id: string;
  livemode: boolean;
  certificate_id: string;
  uid: string;
  last_counter: number;
  tap_count: number;
  last_tap_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
}

const fromRow = (r: TagRow): TagRecord => ({
  id: r.id,
  keyId: r.key_id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  certificateId: r.certificate_id,
  uid: r.uid,
  lastCounter: r.last_counter,
  tapCount: r.tap_count,
  lastTapAt: r.last_tap_at,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export interface MasterKey {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  master: Buffer;
}

export interface NewTag {
  id: string;
  keyId: string;
  certificateId: string;
  uid: string;
  createdBy: string | null;
}

/** What taking a correctly signed tap came to, with the tag as it stands after it. */
export interface TakenTap {
  outcome: 'genuine' | 'replayed' | 'revoked';
  tag: TagRecord;
  /** The last accepted counter before this tap. */
  lastCounter: number;
}

export class TagStore {
  private readonly enc: Encryptor;

  constructor(
    private readonly pool: Pool,
    encryptionKeys: string,
  ) {
    this.enc = new Encryptor(encryptionKeys);
  }

  /** The scope's master key, created with `fresh()` on first use (one per enterprise and mode). */
  async ensureKey(scope: Scope, id: string, fresh: () => Buffer): Promise<MasterKey> {
    await this.pool.query(
      `INSERT INTO nfc_tag_keys (id, enterprise_id, livemode, master_key_enc) VALUES ($1, $2, $3, $4)
       ON CONFLICT (enterprise_id, livemode) DO NOTHING`,
      [id, scope.enterpriseId, scope.livemode, this.enc.encrypt(fresh().toString('hex'))],
    );
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM nfc_tag_keys WHERE enterprise_id = $1 AND livemode = $2',
      [scope.enterpriseId, scope.livemode],
    );
    return (await this.key(rows[0]!.id))!;
  }

  /** A master key by id, decrypted; null when unknown. */
  async key(id: string): Promise<MasterKey | null> {
    const { rows } = await this.pool.query<{
      id: string;
      enterprise_id: string;
      livemode: boolean;
      master_key_enc: string;
    }>('SELECT * FROM nfc_tag_keys WHERE id = $1', [id]);
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      enterpriseId: r.enterprise_id,
      livemode: r.livemode,
      master: Buffer.from(this.enc.decrypt(r.master_key_enc), 'hex'),
    };
  }

  /** The status of a certificate of the scope (locked for the registration); not found otherwise. */
  private async certificateStatus(tx: PoolClient | Pool, scope: Scope, certificateId: string) {
    const { rows } = await tx.query<{ status: string }>(
      `SELECT status FROM certificates WHERE id = $1 AND enterprise_id = $2 AND livemode = $3`,
      [certificateId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('certificate', certificateId);
    return rows[0].status;
  }

  /** Registers a tag for a certificate of the scope: a burned one or an active UID is refused. */
  async register(scope: Scope, tag: NewTag): Promise<TagRecord> {
    return transaction(this.pool, async (tx) => {
      const status = await this.certificateStatus(tx, scope, tag.certificateId);
      if (status === 'burned')
        throw new HallmarkError('validation_failed', {
          param: 'certificate_id',
          message: 'This certificate was burned; no tag can be bound to it.',
        });
      try {
        const { rows } = await tx.query<TagRow>(
          `INSERT INTO nfc_tags (id, key_id, enterprise_id, livemode, certificate_id, uid, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
          [tag.id, tag.keyId, scope.enterpriseId, scope.livemode, tag.certificateId, tag.uid, tag.createdBy],
        );
        return fromRow(rows[0]!);
      } catch (err) {
        if ((err as { code?: string }).code === '23505')
          throw new HallmarkError('resource_already_exists', {
            param: 'uid',
            message: `A tag with UID ${tag.uid} is already registered; revoke it first to bind it again.`,
          });
        throw err;
      }
    });
  }

  /** The tags of a certificate of the scope, newest first. */
  async list(scope: Scope, certificateId: string): Promise<TagRecord[]> {
    await this.certificateStatus(this.pool, scope, certificateId);
    const { rows } = await this.pool.query<TagRow>(
      `SELECT * FROM nfc_tags WHERE certificate_id = $1 AND enterprise_id = $2 AND livemode = $3
       ORDER BY created_at DESC, id`,
      [certificateId, scope.enterpriseId, scope.livemode],
    );
    return rows.map(fromRow);
  }

  /** Revokes a tag of the scope's certificate (again: unchanged). */
  async revoke(scope: Scope, certificateId: string, tagId: string): Promise<TagRecord> {
    const { rows } = await this.pool.query<TagRow>(
      `UPDATE nfc_tags SET revoked_at = COALESCE(revoked_at, now())
        WHERE id = $1 AND certificate_id = $2 AND enterprise_id = $3 AND livemode = $4 RETURNING *`,
      [tagId, certificateId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('tag', tagId);
    return fromRow(rows[0]);
  }

  /** The tag of a UID under a key: the active one, else the newest revoked one. */
  async byUid(keyId: string, uid: string): Promise<TagRecord | null> {
    const { rows } = await this.pool.query<TagRow>(
      `SELECT * FROM nfc_tags WHERE key_id = $1 AND uid = $2
        ORDER BY (revoked_at IS NULL) DESC, created_at DESC LIMIT 1`,
      [keyId, uid],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Records a tap whose signature did not check (the counter is not taken). */
  async recordBadSignature(tagId: string, counter: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO nfc_tag_taps (tag_id, counter, outcome) VALUES ($1, $2, 'bad_signature')`,
      [tagId, counter],
    );
  }

  /**
   * Takes a correctly signed tap's counter under the tag's row lock, so of two taps with the
   * same counter the second sees the first's: one genuine, one replayed. Records the tap; a
   * replay also writes certificate.tag_clone_suspected, once per tag and counter.
   */
  async takeTap(tagId: string, counter: number): Promise<TakenTap> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<TagRow>('SELECT * FROM nfc_tags WHERE id = $1 FOR UPDATE', [tagId]);
      const before = fromRow(rows[0]!);
      const outcome = tapDecision(before, counter);
      let tag = before;
      if (outcome === 'genuine') {
        const { rows: updated } = await tx.query<TagRow>(
          `UPDATE nfc_tags SET last_counter = $2, tap_count = tap_count + 1, last_tap_at = now()
            WHERE id = $1 RETURNING *`,
          [tagId, counter],
        );
        tag = fromRow(updated[0]!);
      }
      if (outcome === 'replayed') {
        const { rowCount } = await tx.query(
          `SELECT 1 FROM nfc_tag_taps WHERE tag_id = $1 AND counter = $2 AND outcome = 'replayed' LIMIT 1`,
          [tagId, counter],
        );
        if (!rowCount)
          await recordEvent(
            tx,
            EVENT_SOURCE,
            newEvent(
              'certificate.tag_clone_suspected',
              {
                object: {
                  tag_id: tag.id,
                  certificate_id: tag.certificateId,
                  uid: tag.uid,
                  counter_seen: counter,
                  last_counter: tag.lastCounter,
                  tap_count: tag.tapCount,
                  at: new Date().toISOString(),
                },
              },
              tag,
            ),
          );
      }
      await tx.query('INSERT INTO nfc_tag_taps (tag_id, counter, outcome) VALUES ($1, $2, $3)', [
        tagId,
        counter,
        outcome,
      ]);
      return { outcome, tag, lastCounter: before.lastCounter };
    });
  }
}
