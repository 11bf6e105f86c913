// All SQL of media: stored objects (a row exists only once its bytes are in the blob store),
// old alias ids, variants, and the backfill's verdicts on hot-linked certificates.
import type { Pool } from '@hallmark/kit';

export interface MediaRow {
  sha256: string;
  contentType: string;
  size: number;
  width: number;
  height: number;
}

export type ImageVerdict = 'archived' | 'unavailable' | 'changed';

/**
 * The backfill's next candidates. Its conditions are those of the partial index
 * `certificates_hotlinked` (migration 3501), so a pass reads that index, not every certificate.
 */
export const BACKFILL_CANDIDATES = `SELECT c.id, c.image_url, c.metadata->'image'->>'sha256' AS sha256
  FROM certificates c LEFT JOIN certificate_images ci ON ci.certificate_id = c.id
  WHERE c.id > $1 AND ci.certificate_id IS NULL AND c.image_url IS NOT NULL
    AND c.image_url NOT LIKE '%/media/%' AND (c.metadata -> 'image' ->> 'sha256') IS NOT NULL
  ORDER BY c.id LIMIT $2`;

export interface BackfillCandidate {
  certificateId: string;
  imageUrl: string;
  sha256: string;
}

type Row = { sha256: string; content_type: string; size: string; width: number; height: number };
const toMedia = (r: Row): MediaRow => ({
  sha256: r.sha256,
  contentType: r.content_type,
  size: Number(r.size),
  width: r.width,
  height: r.height,
});

export class MediaStore {
  constructor(private readonly pool: Pool) {}

  async byHash(sha256: string): Promise<MediaRow | null> {
    const { rows } = await this.pool.query<Row>(
      'SELECT sha256, content_type, size, width, height FROM media_objects WHERE sha256 = $1',
      [sha256],
    );
    return rows[0] ? toMedia(rows[0]) : null;
  }

  async byAlias(id: string): Promise<MediaRow | null> {
    const { rows } = await this.pool.query<Row>(
      `SELECT o.sha256, o.content_type, o.size, o.width, o.height
       FROM media_aliases a JOIN media_objects o ON o.sha256 = a.sha256 WHERE a.id = $1`,
      [id],
    );
    return rows[0] ? toMedia(rows[0]) : null;
  }

  /** Records a stored object (its bytes already in the blob store); a second insert is a no-op. */
  async insert(m: MediaRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO media_objects (sha256, content_type, size, width, height) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (sha256) DO NOTHING`,
      [m.sha256, m.contentType, m.size, m.width, m.height],
    );
  }

  async alias(id: string, sha256: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO media_aliases (id, sha256) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
      [id, sha256],
    );
  }

  async variantSize(sha256: string, width: number): Promise<number | null> {
    const { rows } = await this.pool.query<{ size: string }>(
      'SELECT size FROM media_variants WHERE sha256 = $1 AND width = $2',
      [sha256, width],
    );
    return rows[0] ? Number(rows[0].size) : null;
  }

  async insertVariant(sha256: string, width: number, size: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO media_variants (sha256, width, size) VALUES ($1, $2, $3)
       ON CONFLICT (sha256, width) DO NOTHING`,
      [sha256, width, size],
    );
  }

  /**
   * The next certificates (by id, after `afterId`) whose image is hot-linked (not Hallmark's
   * `/media/`), whose metadata records the image's sha256, and that have no verdict yet.
   */
  async backfillCandidates(afterId: string, limit: number): Promise<BackfillCandidate[]> {
    const { rows } = await this.pool.query<{ id: string; image_url: string; sha256: string }>(
      BACKFILL_CANDIDATES,
      [afterId, limit],
    );
    return rows.map((r) => ({ certificateId: r.id, imageUrl: r.image_url, sha256: r.sha256 }));
  }

  async recordVerdict(
    certificateId: string,
    state: ImageVerdict,
    sha256: string | null,
    detail: string | null,
  ) {
    await this.pool.query(
      `INSERT INTO certificate_images (certificate_id, state, sha256, detail) VALUES ($1, $2, $3, $4)
       ON CONFLICT (certificate_id) DO UPDATE SET state = $2, sha256 = $3, detail = $4, checked_at = now()`,
      [certificateId, state, sha256, detail],
    );
  }

  async verdictOf(certificateId: string): Promise<{ state: ImageVerdict; sha256: string | null } | null> {
    const { rows } = await this.pool.query<{ state: ImageVerdict; sha256: string | null }>(
      'SELECT state, sha256 FROM certificate_images WHERE certificate_id = $1',
      [certificateId],
    );
    return rows[0] ?? null;
  }
}
