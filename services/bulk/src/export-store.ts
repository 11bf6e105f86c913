// All SQL of result downloads: a job's items in pages of PAGE, in row order, so a
// 50,000-row job never sits in memory as objects at once.
import type { Pool, RetentionRule } from '@hallmark/kit';

const PAGE = 2000;

const JOBS = { table: 'jobs', key: 'id', ref: 'job_id' };
const FINISHED = "status IN ('completed', 'failed', 'cancelled')";

/**
 * Retention (kit retention.ts) of a finished job's rows, 90 days after it finished: the
 * results download, the failed-item fixes and retries of a job are done within a quarter.
 * The job itself (its counts and status) stays; an unfinished job's rows stay however old.
 */
export const JOB_ROWS_RETENTION: RetentionRule[] = [
  {
    table: 'job_items',
    key: '(job_id, idx)',
    parent: JOBS,
    ageColumn: 'completed_at',
    onlyIf: FINISHED,
    defaultDays: 90,
  },
  {
    table: 'job_image_urls',
    key: '(job_id, url)',
    parent: JOBS,
    ageColumn: 'completed_at',
    onlyIf: FINISHED,
    defaultDays: 90,
  },
];

export interface ExportRow {
  idx: number;
  row_number: number;
  name: string;
  status: string;
  certificate_id: string | null;
  voucher_id: string | null;
  reference_number: string | null;
  voucher_url: string | null;
  recipient_email: string | null;
  error: string | null;
  input: Record<string, unknown>;
  media_id: string | null;
  token_id: string | null;
  transaction_hash: string | null;
  block_number: string | null;
}

export class ExportStore {
  constructor(readonly pool: Pool) {}

  /** The job's items page by page (only succeeded ones with `succeededOnly`). */
  async *pages(jobId: string, opts: { succeededOnly?: boolean } = {}): AsyncGenerator<ExportRow[]> {
    let after = -1;
    for (;;) {
      const { rows } = await this.pool.query<ExportRow>(
        `SELECT idx, row_number, name, status, certificate_id, voucher_id, reference_number, voucher_url,
                recipient_email, error, input, media_id, token_id, transaction_hash, block_number
           FROM job_items WHERE job_id = $1 AND idx > $2 ${opts.succeededOnly ? "AND status = 'success'" : ''}
          ORDER BY idx LIMIT $3`,
        [jobId, after, PAGE],
      );
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]!.idx;
    }
  }
}
