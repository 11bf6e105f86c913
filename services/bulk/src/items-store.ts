// SQL of fixing one item of a job in place (PATCH /api/bulk-mint/:jobId/items/:row): under
// the job's row lock, the item's current cells go to the caller's rule and the corrected
// row comes back as a `failed` item, which the existing retry puts back to pending in the
// same job. What a row may hold is decided by domain/row-fix.ts.
import { HallmarkError, notFound, transaction } from '@hallmark/kit';
import type { CsvRow } from './domain/csv-row.js';
import { addToImageIndex, matchImage, newImageIndex } from './domain/image-match.js';
import { imageKeys } from './domain/zip.js';
import type { Scope } from './domain/job.js';
import type { JobsStore } from './store.js';

export interface FixedItem {
  row: number;
  name: string;
  status: string;
  error: string | null;
}

/** The error a fixed row carries until the retry processes it. */
export const FIXED_NOT_RETRIED = 'Corrected; not processed yet: retry the job to process it.';

export class ItemsStore {
  constructor(private readonly jobs: JobsStore) {}

  async fix(
    scope: Pick<Scope, 'enterpriseId' | 'livemode'>,
    jobId: string,
    row: number,
    rule: (current: Record<string, unknown>, contacts: Contacts, keepsImage: boolean) => CsvRow,
  ): Promise<FixedItem> {
    return transaction(this.jobs.pool, async (tx) => {
      const job = await tx.query<{ status: string; form: string }>(
        'SELECT status, form FROM jobs WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE',
        [jobId, scope.enterpriseId, scope.livemode],
      );
      if (!job.rows[0]) await this.jobs.get(scope, jobId, tx); // throws the right 404
      const { status, form } = job.rows[0]!;
      if (form !== 'csv')
        throw new HallmarkError('parameter_invalid', {
          param: 'jobId',
          message: 'Only rows of a CSV job can be fixed; an order job is corrected by a new order.',
        });
      if (status !== 'completed' && status !== 'failed')
        throw new HallmarkError('resource_locked', {
          message: `The job is ${status}; a row can be fixed once the job has finished.`,
        });
      const { rows } = await tx.query<{
        idx: number;
        status: string;
        input: Record<string, unknown>;
        recipient_email: string | null;
        recipient_name: string | null;
        media_id: string | null;
      }>(
        `SELECT idx, status, input, recipient_email, recipient_name, media_id FROM job_items
          WHERE job_id = $1 AND row_number = $2 ORDER BY idx LIMIT 1 FOR UPDATE`,
        [jobId, row],
      );
      const item = rows[0];
      if (!item) throw notFound('row', String(row));
      if (item.status !== 'failed' && item.status !== 'invalid')
        throw new HallmarkError('parameter_invalid', {
          param: 'row',
          message: `Row ${row} is ${item.status === 'success' ? 'already minted' : item.status}; only a failed row can be fixed.`,
        });
      const contacts = {
        recipientEmail: this.jobs.decrypt(item.recipient_email),
        recipientName: this.jobs.decrypt(item.recipient_name),
      };
      // The job's ZIP images, for a row that had none (it failed before matching one).
      const media = await tx.query<{ id: string; path: string; sha256: string; content_type: string }>(
        'SELECT id, path, sha256, content_type FROM media WHERE job_id = $1 ORDER BY created_at, id',
        [jobId],
      );
      const r = rule(item.input, contacts, item.media_id !== null || media.rows.length > 0);
      let image: { id: string; sha256: string; content_type: string } | undefined;
      // Matched as at upload (domain/image-match.ts): a row's `imageFile` names its file in the
      // job's kept ZIP images (it was ignored here, so such a row could not be fixed).
      if (item.media_id === null && (r.imageFile || !r.imageUrl)) {
        const index = newImageIndex<(typeof media.rows)[number]>();
        for (const m of media.rows) addToImageIndex(index, imageKeys(m.path), m);
        image = matchImage({ row, name: r.name, imageFile: r.imageFile }, index);
        if (!image)
          throw new HallmarkError('parameter_invalid', {
            param: 'imageUrl',
            message: r.imageFile
              ? `No image named ${r.imageFile} in the job's ZIP for row ${row}; set imageUrl.`
              : `No image for row ${row} in the job's ZIP (looked for ${row}.png/.jpg/.webp and the name); set imageUrl.`,
          });
      }
      const keep = item.media_id !== null && !r.imageUrl;
      const input = {
        name: r.name,
        description: r.description,
        category: r.category,
        imageUrl: keep || image ? undefined : r.imageUrl,
        attributes: r.attributes,
        expiryDays: r.expiryDays,
        ...(keep
          ? { imageSha256: item.input.imageSha256, imageContentType: item.input.imageContentType }
          : image
            ? { imageSha256: image.sha256, imageContentType: image.content_type }
            : {}),
      };
      await tx.query(
        `UPDATE job_items SET status = 'failed', name = $3, input = $4, recipient_email = $5,
                recipient_name = $6, media_id = $7, batch_key = NULL, error = $8
          WHERE job_id = $1 AND idx = $2`,
        [
          jobId,
          item.idx,
          r.name.slice(0, 500),
          JSON.stringify(input),
          this.jobs.encrypt(r.recipientEmail),
          this.jobs.encrypt(r.recipientName),
          keep ? item.media_id : (image?.id ?? null),
          FIXED_NOT_RETRIED,
        ],
      );
      await tx.query('UPDATE jobs SET updated_at = now() WHERE id = $1', [jobId]);
      return { row, name: r.name, status: 'failed', error: FIXED_NOT_RETRIED };
    });
  }
}

export interface Contacts {
  recipientEmail: string | null;
  recipientName: string | null;
}
