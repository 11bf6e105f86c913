// All SQL of jobs: create (job + items in one transaction), read, list, cancel, retry and the
// submitter's queries. Every tenant query is scoped by (enterprise_id, livemode). The
// workflow's per-batch writes live in batches-store.ts; images in media-store.ts.
import {
  Encryptor,
  HallmarkError,
  newEvent,
  notFound,
  notFoundInOtherMode,
  recordEvent,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import type { ItemVoucher, JobRecord, JobStatus, Scope } from './domain/job.js';

export const EVENT_SOURCE = 'bulk';

export interface JobRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  actor_id: string;
  actor_type: string;
  form: JobRecord['form'];
  status: JobStatus;
  idempotency_key: string | null;
  external_context: JobRecord['externalContext'];
  create_batch: boolean;
  csv_filename: string | null;
  total_count: number;
  processed_count: number;
  success_count: number;
  failed_count: number;
  pass: number;
  submitted_pass: number;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  retried_at: Date | null;
}

export const jobFromRow = (r: JobRow): JobRecord => ({
  id: r.id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  actorId: r.actor_id,
  actorType: r.actor_type,
  form: r.form,
  status: r.status,
  idempotencyKey: r.idempotency_key,
  externalContext: r.external_context,
  createBatch: r.create_batch,
  csvFilename: r.csv_filename,
  totalCount: r.total_count,
  processedCount: r.processed_count,
  successCount: r.success_count,
  failedCount: r.failed_count,
  pass: r.pass,
  submittedPass: r.submitted_pass,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  retriedAt: r.retried_at,
});

/** One item as the creator hands it over (validated already). */
export interface NewItem {
  idx: number;
  row: number;
  name: string;
  /** null: a valid item; else its row error (the item is `invalid`, never minted). */
  error: string | null;
  input: Record<string, unknown>;
  recipientEmail?: string | null;
  recipientName?: string | null;
  mediaId?: string | null;
}

export interface NewJob {
  id: string;
  scope: Scope;
  form: JobRecord['form'];
  idempotencyKey?: string | null;
  externalContext?: unknown;
  createBatch?: boolean;
  csvFilename?: string | null;
}

const INSERT_CHUNK = 1000;

/** A row error with its item's idx (the keyset cursor of the next page). */
export interface RowErrorAt {
  row: number;
  error: string;
  idx: number;
}

export class JobsStore {
  constructor(
    readonly pool: Pool,
    private readonly crypto: Encryptor,
  ) {}

  encrypt = (v: string | null | undefined): string | null => (v ? this.crypto.encrypt(v) : null);
  decrypt = (v: string | null): string | null => (v ? this.crypto.decrypt(v) : null);

  /** Inserts the job row; items follow with `insertItems` in the same transaction. */
  /** Unfinished jobs by status, and their items not yet processed (metrics: the backlog). */
  async backlog(): Promise<{ status: string; jobs: number; items: number }[]> {
    const { rows } = await this.pool.query<{ status: string; jobs: number; items: number }>(
      `SELECT status, count(*)::int AS jobs, COALESCE(sum(total_count - processed_count), 0)::int AS items
       FROM jobs WHERE status IN ('queued', 'processing') GROUP BY status`,
    );
    return rows;
  }

  async insertJob(tx: Queryable, job: NewJob): Promise<void> {
    await tx.query(
      `INSERT INTO jobs (id, enterprise_id, livemode, actor_id, actor_type, form, idempotency_key,
                         external_context, create_batch, csv_filename, total_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0)`,
      [
        job.id,
        job.scope.enterpriseId,
        job.scope.livemode,
        job.scope.actorId,
        job.scope.actorType,
        job.form,
        job.idempotencyKey ?? null,
        job.externalContext === undefined ? null : JSON.stringify(job.externalContext),
        job.createBatch ?? false,
        job.csvFilename ?? null,
      ],
    );
  }

  /** Inserts items in multi-row statements and adds them to the job's counts. */
  async insertItems(tx: Queryable, jobId: string, items: NewItem[]): Promise<void> {
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      const chunk = items.slice(i, i + INSERT_CHUNK);
      await tx.query(
        `INSERT INTO job_items (job_id, idx, row_number, status, name, input, recipient_email,
                                recipient_name, media_id, error)
         SELECT $1, t.idx, t.row_number, CASE WHEN t.error IS NULL THEN 'pending' ELSE 'invalid' END,
                t.name, t.input, t.email, t.rname, t.media, t.error
           FROM unnest($2::int[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::text[],
                       $9::text[]) AS t(idx, row_number, name, input, email, rname, media, error)`,
        [
          jobId,
          chunk.map((c) => c.idx),
          chunk.map((c) => c.row),
          chunk.map((c) => c.name.slice(0, 500)),
          chunk.map((c) => JSON.stringify(c.input)),
          chunk.map((c) => this.encrypt(c.recipientEmail)),
          chunk.map((c) => this.encrypt(c.recipientName)),
          chunk.map((c) => c.mediaId ?? null),
          chunk.map((c) => c.error),
        ],
      );
      // Counts start at 0 (spec › Bulk job states): a row that failed validation is counted
      // as processed and failed when the job's run reaches it (BatchesStore.start).
      await tx.query('UPDATE jobs SET total_count = total_count + $2 WHERE id = $1', [jobId, chunk.length]);
    }
  }

  /** The job the Idempotency-Key already named, for the 409 body. */
  async byIdempotencyKey(scope: Scope, key: string): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<JobRow>(
      'SELECT * FROM jobs WHERE enterprise_id = $1 AND livemode = $2 AND idempotency_key = $3',
      [scope.enterpriseId, scope.livemode, key],
    );
    return rows[0] ? jobFromRow(rows[0]) : null;
  }

  async get(scope: Pick<Scope, 'enterpriseId' | 'livemode'>, id: string, q: Queryable = this.pool) {
    const { rows } = await q.query<JobRow>(
      'SELECT * FROM jobs WHERE id = $1 AND enterprise_id = $2 AND livemode = $3',
      [id, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) {
      const other = await q.query(
        'SELECT 1 FROM jobs WHERE id = $1 AND enterprise_id = $2 AND livemode <> $3',
        [id, scope.enterpriseId, scope.livemode],
      );
      throw other.rows[0] ? notFoundInOtherMode('job', id, scope.livemode) : notFound('job', id);
    }
    return jobFromRow(rows[0]);
  }

  /** The workflow's read (no tenant: the job id comes from the workflow key). */
  async byId(id: string, q: Queryable = this.pool): Promise<JobRecord | null> {
    const { rows } = await q.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
    return rows[0] ? jobFromRow(rows[0]) : null;
  }

  async list(
    scope: Pick<Scope, 'enterpriseId' | 'livemode'>,
    status: JobStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ jobs: JobRecord[]; total: number }> {
    const where = 'enterprise_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)';
    const params = [scope.enterpriseId, scope.livemode, status ?? null];
    const [{ rows }, count] = await Promise.all([
      this.pool.query<JobRow>(
        `SELECT * FROM jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
        [...params, limit, (page - 1) * limit],
      ),
      this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM jobs WHERE ${where}`, params),
    ]);
    return { jobs: rows.map(jobFromRow), total: Number(count.rows[0]!.n) };
  }

  /** Row errors: invalid rows, failed and cancelled items, in row order. */
  async errors(jobId: string, limit = 50_000, afterIdx = -1): Promise<RowErrorAt[]> {
    const { rows } = await this.pool.query<{ idx: number; row_number: number; error: string }>(
      `SELECT idx, row_number, coalesce(error, status) AS error FROM job_items
        WHERE job_id = $1 AND status IN ('failed', 'invalid', 'cancelled') AND idx > $3 ORDER BY idx LIMIT $2`,
      [jobId, limit, afterIdx],
    );
    return rows.map((r) => ({ row: r.row_number, error: r.error, idx: r.idx }));
  }

  /**
   * Vouchers of the succeeded items, in item order: a keyset page after item `afterIdx`
   * (-1: from the first). The metadata comes back as JSON text (built in SQL) and is passed
   * through as it is: a page never holds parsed objects. Each voucher carries its item's idx,
   * the cursor of the next page.
   */
  async vouchers(
    jobId: string,
    q: Queryable = this.pool,
    limit = 100_000,
    afterIdx = -1,
  ): Promise<(ItemVoucher & { idx: number })[]> {
    const { rows } = await q.query<VoucherRow>(
      `SELECT idx, row_number, name, voucher_id, voucher_url, reference_number, certificate_id, token_id,
              transaction_hash, block_number, voucher_expires_at, input->>'lineItemGid' AS line_item_gid,
              coalesce(input->'metadata', jsonb_strip_nulls(jsonb_build_object(
                'name', input->'name', 'description', input->'description', 'category', input->'category',
                'imageUrl', input->'imageUrl', 'attributes', input->'attributes')))::text AS metadata_json
         FROM job_items WHERE job_id = $1 AND status = 'success' AND idx > $3 ORDER BY idx LIMIT $2`,
      [jobId, limit, afterIdx],
    );
    return rows.map((r) => ({ ...voucherFromRow(r), idx: r.idx }));
  }

  /** Cancels a queued or processing job; finished jobs answer as they are. */
  async cancel(scope: Scope, id: string): Promise<JobRecord> {
    const { rows } = await this.pool.query<JobRow>(
      `UPDATE jobs SET status = 'cancelled', updated_at = now(), completed_at = now()
        WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 AND status IN ('queued', 'processing')
        RETURNING *`,
      [id, scope.enterpriseId, scope.livemode],
    );
    return rows[0] ? jobFromRow(rows[0]) : this.get(scope, id);
  }

  /**
   * Puts every failed item of a finished job back: failed items to pending, and rows that
   * failed validation are counted again by the new pass (they fail again with the same
   * error). Both are in `retried` (spec: "only failed items are reprocessed"). Nothing to
   * retry (or a job still running) changes nothing: safe to repeat.
   */
  async retry(scope: Scope, id: string): Promise<{ job: JobRecord; retried: number }> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<JobRow>(
        'SELECT * FROM jobs WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE',
        [id, scope.enterpriseId, scope.livemode],
      );
      if (!rows[0]) throw notFound('job', id);
      const job = jobFromRow(rows[0]);
      if (job.status !== 'failed' && job.status !== 'completed') return { job, retried: 0 };
      const reset = await tx.query(
        `UPDATE job_items SET status = 'pending', batch_key = NULL, error = NULL
          WHERE job_id = $1 AND status = 'failed'`,
        [id],
      );
      const invalid = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM job_items WHERE job_id = $1 AND status = 'invalid'`,
        [id],
      );
      const retried = (reset.rowCount ?? 0) + invalid.rows[0]!.n;
      if (retried === 0) return { job, retried: 0 };
      const updated = await tx.query<JobRow>(
        `UPDATE jobs SET status = 'queued', pass = pass + 1, error = NULL, completed_at = NULL, retried_at = now(),
                         failed_count = failed_count - $2, processed_count = processed_count - $2,
                         updated_at = now()
          WHERE id = $1 RETURNING *`,
        [id, retried],
      );
      return { job: jobFromRow(updated.rows[0]!), retried };
    });
  }

  /** Jobs whose current pass Restate has not acknowledged yet (oldest first). */
  async unsubmitted(limit: number): Promise<{ id: string; pass: number }[]> {
    const { rows } = await this.pool.query<{ id: string; pass: number }>(
      `SELECT id, pass FROM jobs WHERE submitted_pass < pass AND status IN ('queued', 'processing')
        ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows;
  }

  async markSubmitted(id: string, pass: number): Promise<void> {
    await this.pool.query('UPDATE jobs SET submitted_pass = greatest(submitted_pass, $2) WHERE id = $1', [
      id,
      pass,
    ]);
  }

  /** document.uploaded for a CSV upload (versioned surface), in the creating transaction. */
  async recordUploaded(tx: Queryable, job: JobRecord): Promise<void> {
    await recordEvent(tx, EVENT_SOURCE, newEvent('document.uploaded', { object: documentObject(job) }, job));
  }
}

/** A CSV upload as the versioned surface's document object. */
export function documentObject(job: JobRecord): Record<string, unknown> {
  return {
    id: job.id,
    object: 'document',
    type: 'bulk_mint_csv',
    filename: job.csvFilename,
    status: job.status,
    total_count: job.totalCount,
    success_count: job.successCount,
    failed_count: job.failedCount,
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}

interface VoucherRow {
  idx: number;
  row_number: number;
  name: string;
  metadata_json: string;
  line_item_gid: string | null;
  voucher_id: string;
  voucher_url: string;
  reference_number: string;
  certificate_id: string;
  token_id: string | null;
  transaction_hash: string | null;
  block_number: string | null;
  voucher_expires_at: Date | null;
}

const voucherFromRow = (r: VoucherRow): ItemVoucher => ({
  row: r.row_number,
  name: r.name,
  voucherId: r.voucher_id,
  url: r.voucher_url,
  referenceNumber: r.reference_number,
  metadataJson: r.metadata_json,
  certificateId: r.certificate_id,
  tokenId: r.token_id === null ? null : Number(r.token_id),
  transactionHash: r.transaction_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  lineItemGid: r.line_item_gid,
  expiresAt: r.voucher_expires_at,
});

export const conflictOf = (job: JobRecord) =>
  new HallmarkError('resource_already_exists', {
    message: `A job with this Idempotency-Key already exists: ${job.id}.`,
    param: 'Idempotency-Key',
    extras: { existingJobId: job.id, status: job.status },
  });
