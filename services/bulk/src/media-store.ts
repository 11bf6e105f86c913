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
  bytes: Buffer;
}

export interface Medium {
  contentType: string;
  sha256: string;
  bytes: Buffer;
}

export class MediaStore {
  constructor(readonly pool: Pool) {}

  async insert(
    tx: Queryable,
    scope: Pick<Scope, 'enterpriseId'>,
    jobId: string,
    m: NewMedium,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO media (id, enterprise_id, job_id, path, content_type, sha256, bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [m.id, scope.enterpriseId, jobId, m.path, m.contentType, m.sha256, m.bytes],
    );
  }

  /** The public read of one image by its capability id (GET /media/<id>). */
  async publicMedium(id: string): Promise<Medium | null> {
    const { rows } = await this.pool.query<{ content_type: string; sha256: string; bytes: Buffer }>(
      'SELECT content_type, sha256, bytes FROM media WHERE id = $1',
      [id],
    );
    const r = rows[0];
    return r ? { contentType: r.content_type, sha256: r.sha256, bytes: r.bytes } : null;
  }

  /** The named images of one job of the enterprise (a download's images); others are absent. */
  async ofJob(
    scope: Pick<Scope, 'enterpriseId'>,
    jobId: string,
    ids: readonly string[],
  ): Promise<Map<string, Medium>> {
    const out = new Map<string, Medium>();
    if (ids.length === 0) return out;
    const { rows } = await this.pool.query<{
      id: string;
      content_type: string;
      sha256: string;
      bytes: Buffer;
    }>(
      `SELECT id, content_type, sha256, bytes FROM media
       WHERE id = ANY($1::text[]) AND job_id = $2 AND enterprise_id = $3`,
      [[...ids], jobId, scope.enterpriseId],
    );
    for (const r of rows) out.set(r.id, { contentType: r.content_type, sha256: r.sha256, bytes: r.bytes });
    return out;
  }
}
