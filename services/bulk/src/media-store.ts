// All SQL of media: the images of ZIP uploads. A medium belongs to one job of one enterprise;
// its id (`med_` + 24 random base62 characters) is a capability: anyone holding it may fetch
// the image (it is the certificate's public image URL, /media/<id>), so the public read is
// by id alone. Every other read is scoped by enterprise and job.
import type { Pool, Queryable } from '@hallmark/kit';
import type { Scope } from './domain/job.js';

export interface NewMedium {
  id: string;
  path: string;
  contentType: string;
  sha256: string;
  /** null once (or when) the image is in the certificates service's store. */
  bytes: Buffer | null;
  archivedSha256?: string | null;
}

export interface Medium {
  contentType: string;
  sha256: string;
  /** null: moved to the certificates service's store, under `archivedSha256`. */
  bytes: Buffer | null;
  archivedSha256: string | null;
}

type Row = {
  id: string;
  content_type: string;
  sha256: string;
  bytes: Buffer | null;
  archived_sha256: string | null;
};
const toMedium = (r: Row): Medium => ({
  contentType: r.content_type,
  sha256: r.sha256,
  bytes: r.bytes,
  archivedSha256: r.archived_sha256,
});

export class MediaStore {
  constructor(readonly pool: Pool) {}

  async insert(
    tx: Queryable,
    scope: Pick<Scope, 'enterpriseId'>,
    jobId: string,
    m: NewMedium,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO media (id, enterprise_id, job_id, path, content_type, sha256, bytes, archived_sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [m.id, scope.enterpriseId, jobId, m.path, m.contentType, m.sha256, m.bytes, m.archivedSha256 ?? null],
    );
  }

  /** The public read of one image by its capability id (GET /media/<id>). */
  async publicMedium(id: string): Promise<Medium | null> {
    const { rows } = await this.pool.query<Row>(
      'SELECT id, content_type, sha256, bytes, archived_sha256 FROM media WHERE id = $1',
      [id],
    );
    return rows[0] ? toMedium(rows[0]) : null;
  }

  /** The named images of one job of the enterprise (a download's images); others are absent. */
  async ofJob(
    scope: Pick<Scope, 'enterpriseId'>,
    jobId: string,
    ids: readonly string[],
  ): Promise<Map<string, Medium>> {
    const out = new Map<string, Medium>();
    if (ids.length === 0) return out;
    const { rows } = await this.pool.query<Row>(
      `SELECT id, content_type, sha256, bytes, archived_sha256 FROM media
       WHERE id = ANY($1::text[]) AND job_id = $2 AND enterprise_id = $3`,
      [[...ids], jobId, scope.enterpriseId],
    );
    for (const r of rows) out.set(r.id, toMedium(r));
    return out;
  }

  /** ZIP images still held here (stored before the move), oldest ids first. */
  async unmoved(limit: number): Promise<{ id: string; bytes: Buffer }[]> {
    const { rows } = await this.pool.query<{ id: string; bytes: Buffer }>(
      'SELECT id, bytes FROM media WHERE bytes IS NOT NULL ORDER BY id LIMIT $1',
      [limit],
    );
    return rows;
  }

  /** An image now in the certificates service's store: its bytes here are dropped. */
  async markMoved(id: string, archivedSha256: string): Promise<void> {
    await this.pool.query('UPDATE media SET bytes = NULL, archived_sha256 = $2 WHERE id = $1', [
      id,
      archivedSha256,
    ]);
  }
}
