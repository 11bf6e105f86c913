// The workflow's writes: starting a run, taking a batch of items (recorded before the
// MintBatch call, so a repeated step sends the same items under the same key), recording a
// batch's results or failure, and finishing the job with its events in one transaction.
// Every write is conditional on the items' state, so a step repeated by Restate changes
// nothing twice and counts never drift.
import {
  newEvent,
  recordEvent,
  recordEvents,
  transaction,
  type EventInput,
  type EventType,
  type Queryable,
} from '@hallmark/kit';
import {
  EVENT_VOUCHER_LIMIT,
  failureMessage,
  finalStatus,
  jobEventBody,
  type JobRecord,
} from './domain/job.js';
import { documentObject, EVENT_SOURCE, jobFromRow, type JobRow, type JobsStore } from './store.js';

export interface BatchItem {
  idx: number;
  row: number;
  name: string;
  input: Record<string, unknown>;
  /** Decrypted for `sentItems` (the vouchers); null as `claim` reads them. */
  recipientEmail: string | null;
  recipientName: string | null;
  mediaId: string | null;
}

export interface ItemResult {
  idx: number;
  certificateId: string;
  voucherId: string;
  url: string;
  referenceNumber: string;
  expiresAt: string;
  tokenId: number | null;
  transactionHash: string | null;
  blockNumber: number | null;
}

interface ItemRow {
  idx: number;
  row_number: number;
  name: string;
  input: Record<string, unknown>;
  recipient_email: string | null;
  recipient_name: string | null;
  media_id: string | null;
}

export class BatchesStore {
  constructor(private readonly jobs: JobsStore) {}

  private get pool() {
    return this.jobs.pool;
  }

  /**
   * Moves a queued job of this pass to processing; answers the job as it is now. Rows that
   * failed validation are counted processed and failed here, by the job (every pass: a
   * retry takes them out of the counts and they fail again with the same error).
   */
  async start(jobId: string, pass: number): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<JobRow>(
      `UPDATE jobs SET status = 'processing', started_at = coalesce(started_at, now()), updated_at = now(),
                       failed_count = failed_count + i.n, processed_count = processed_count + i.n
         FROM (SELECT count(*)::int AS n FROM job_items WHERE job_id = $1 AND status = 'invalid') i
        WHERE id = $1 AND pass = $2 AND status = 'queued' RETURNING jobs.*`,
      [jobId, pass],
    );
    return rows[0] ? jobFromRow(rows[0]) : this.jobs.byId(jobId);
  }

  /**
   * The items of batch `key`: the ones it took before, else the next `size` pending items
   * (in item order), marked with the key in the same statement.
   */
  async claim(jobId: string, key: string, size: number): Promise<BatchItem[]> {
    return transaction(this.pool, async (tx) => {
      await tx.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
      const taken = await tx.query('SELECT 1 FROM job_items WHERE job_id = $1 AND batch_key = $2 LIMIT 1', [
        jobId,
        key,
      ]);
      if (taken.rows.length === 0) {
        await tx.query(
          `UPDATE job_items SET batch_key = $2, attempts = attempts + 1
            WHERE job_id = $1 AND idx IN (
              SELECT idx FROM job_items WHERE job_id = $1 AND status = 'pending' AND batch_key IS NULL
               ORDER BY idx LIMIT $3)`,
          [jobId, key, size],
        );
      }
      // Only the still-pending ones: items that failed before an earlier attempt's call stay out.
      // Without their contacts: MintBatch does not carry them (the vouchers of `sentItems` do),
      // and decrypting two per item was a tenth of the bulk process's CPU in a job.
      return this.itemsOf(tx, jobId, key, ['pending'], false);
    });
  }

  /** The items of batch `key` that went to MintBatch: all but those failed before the call. */
  sentItems(jobId: string, key: string): Promise<BatchItem[]> {
    return this.itemsOf(this.pool, jobId, key, ['pending', 'success'], true);
  }

  /** The batch's items in `statuses`; `contacts`: decrypted, else null (not even read). */
  private async itemsOf(
    q: Queryable,
    jobId: string,
    key: string,
    statuses: string[],
    contacts: boolean,
  ): Promise<BatchItem[]> {
    const { rows } = await q.query<ItemRow>(
      `SELECT idx, row_number, name, input, media_id${contacts ? ', recipient_email, recipient_name' : ''}
         FROM job_items WHERE job_id = $1 AND batch_key = $2 AND status = ANY($3::text[]) ORDER BY idx`,
      [jobId, key, statuses],
    );
    return rows.map((r) => ({
      idx: r.idx,
      row: r.row_number,
      name: r.name,
      input: r.input,
      recipientEmail: contacts ? this.jobs.decrypt(r.recipient_email) : null,
      recipientName: contacts ? this.jobs.decrypt(r.recipient_name) : null,
      mediaId: r.media_id,
    }));
  }

  /** Marks the batch's still-pending items succeeded with their vouchers; returns how many. */
  async recordSuccess(jobId: string, key: string, results: ItemResult[]): Promise<number> {
    return transaction(this.pool, async (tx) => {
      const res = await tx.query(
        `UPDATE job_items i SET status = 'success', error = NULL, certificate_id = r.cert, voucher_id = r.voucher,
                voucher_url = r.url, reference_number = r.ref, voucher_expires_at = r.expires,
                token_id = r.token, transaction_hash = r.tx, block_number = r.block
           FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[],
                       $9::bigint[], $10::text[], $11::bigint[])
                AS r(idx, cert, voucher, url, ref, expires, token, tx, block)
          WHERE i.job_id = $1 AND i.batch_key = $2 AND i.idx = r.idx AND i.status = 'pending'`,
        [
          jobId,
          key,
          results.map((r) => r.idx),
          results.map((r) => r.certificateId),
          results.map((r) => r.voucherId),
          results.map((r) => r.url),
          results.map((r) => r.referenceNumber),
          results.map((r) => r.expiresAt),
          results.map((r) => r.tokenId),
          results.map((r) => r.transactionHash),
          results.map((r) => r.blockNumber),
        ],
      );
      const n = res.rowCount ?? 0;
      await tx.query(
        `UPDATE jobs SET success_count = success_count + $2, processed_count = processed_count + $2,
                         updated_at = now() WHERE id = $1`,
        [jobId, n],
      );
      return n;
    });
  }

  /** Marks the batch's still-pending items failed with `error`; returns how many. */
  async recordFailure(jobId: string, key: string, error: string): Promise<number> {
    return transaction(this.pool, async (tx) => {
      const res = await tx.query(
        `UPDATE job_items SET status = 'failed', error = $3
          WHERE job_id = $1 AND batch_key = $2 AND status = 'pending'`,
        [jobId, key, error.slice(0, 1000)],
      );
      const n = res.rowCount ?? 0;
      await tx.query(
        `UPDATE jobs SET failed_count = failed_count + $2, processed_count = processed_count + $2,
                         updated_at = now() WHERE id = $1`,
        [jobId, n],
      );
      return n;
    });
  }

  /** Marks single items of a batch failed (e.g. an image that could not be fetched). */
  async failItems(jobId: string, key: string, failures: { idx: number; error: string }[]): Promise<void> {
    if (failures.length === 0) return;
    await transaction(this.pool, async (tx) => {
      const res = await tx.query(
        `UPDATE job_items i SET status = 'failed', error = f.error
           FROM unnest($3::int[], $4::text[]) AS f(idx, error)
          WHERE i.job_id = $1 AND i.batch_key = $2 AND i.idx = f.idx AND i.status = 'pending'`,
        [jobId, key, failures.map((f) => f.idx), failures.map((f) => f.error.slice(0, 1000))],
      );
      const n = res.rowCount ?? 0;
      await tx.query(
        `UPDATE jobs SET failed_count = failed_count + $2, processed_count = processed_count + $2,
                         updated_at = now() WHERE id = $1`,
        [jobId, n],
      );
    });
  }

  /**
   * The automatic retry (spec: failed items are retried once): items that failed on their
   * first attempt go back to pending. Returns how many.
   */
  async resetForAutoRetry(jobId: string): Promise<number> {
    return transaction(this.pool, async (tx) => {
      const res = await tx.query(
        `UPDATE job_items SET status = 'pending', batch_key = NULL
          WHERE job_id = $1 AND status = 'failed' AND attempts < 2`,
        [jobId],
      );
      const n = res.rowCount ?? 0;
      await tx.query(
        `UPDATE jobs SET failed_count = failed_count - $2, processed_count = processed_count - $2
          WHERE id = $1`,
        [jobId, n],
      );
      return n;
    });
  }

  /** Items never taken by a batch of a cancelled job. */
  async markCancelled(jobId: string): Promise<void> {
    await this.pool.query(
      `UPDATE job_items SET status = 'cancelled', error = 'The job was cancelled before this item was processed.'
        WHERE job_id = $1 AND status = 'pending' AND batch_key IS NULL`,
      [jobId],
    );
  }

  /**
   * Ends a run: completed or failed, with bulk.job.completed / bulk.job.failed (and
   * document.processed for a CSV upload) in the same transaction. A cancelled job or a stale
   * pass changes nothing.
   */
  async finish(jobId: string, pass: number): Promise<JobRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<JobRow>('SELECT * FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
      const current = rows[0] ? jobFromRow(rows[0]) : null;
      if (!current || current.pass !== pass || current.status !== 'processing') return current;
      const status = finalStatus(current);
      const error = status === 'failed' ? failureMessage(current) : null;
      const updated = await tx.query<JobRow>(
        `UPDATE jobs SET status = $2, error = $3, completed_at = now(), updated_at = now()
          WHERE id = $1 RETURNING *`,
        [jobId, status, error],
      );
      const job = jobFromRow(updated.rows[0]!);
      const vouchers = await this.jobs.vouchers(jobId, tx, EVENT_VOUCHER_LIMIT);
      const body = jobEventBody(job, vouchers, job.completedAt!.getTime() - job.createdAt.getTime());
      const events: EventInput<EventType>[] = [
        status === 'completed'
          ? newEvent('bulk.job.completed', body, job)
          : newEvent('bulk.job.failed', { ...body, error: error ?? undefined }, job),
      ];
      if (job.form === 'csv')
        events.push(newEvent('document.processed', { object: documentObject(job) }, job));
      await recordEvents(tx, EVENT_SOURCE, events);
      return job;
    });
  }

  /** A cancelled job's upload is processed as far as it went (versioned surface). */
  async recordCancelledDocument(job: JobRecord): Promise<void> {
    if (job.form !== 'csv') return;
    await recordEvent(
      this.pool,
      EVENT_SOURCE,
      newEvent('document.processed', { object: documentObject(job) }, job),
    );
  }

  /** The fetched image of `url` for this job: the first fetch's result is kept. */
  async imageOf(
    jobId: string,
    url: string,
    fetch: () => Promise<{ sha256: string; contentType: string } | { error: string }>,
  ): Promise<{ sha256: string | null; contentType: string | null; error: string | null }> {
    const known = await this.pool.query<{
      sha256: string | null;
      content_type: string | null;
      error: string | null;
    }>('SELECT sha256, content_type, error FROM job_image_urls WHERE job_id = $1 AND url = $2', [jobId, url]);
    if (known.rows[0]) return { ...known.rows[0], contentType: known.rows[0].content_type };
    const got = await fetch();
    const row =
      'error' in got ? { sha256: null, contentType: null, error: got.error } : { ...got, error: null };
    // A transient failure is not kept: the automatic retry fetches again.
    if (row.error) return row;
    await this.pool.query(
      `INSERT INTO job_image_urls (job_id, url, sha256, content_type) VALUES ($1, $2, $3, $4)
       ON CONFLICT (job_id, url) DO NOTHING`,
      [jobId, url, row.sha256, row.contentType],
    );
    const again = await this.pool.query<{ sha256: string | null; content_type: string | null }>(
      'SELECT sha256, content_type FROM job_image_urls WHERE job_id = $1 AND url = $2',
      [jobId, url],
    );
    return { sha256: again.rows[0]!.sha256, contentType: again.rows[0]!.content_type, error: null };
  }
}
