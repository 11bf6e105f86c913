// The use cases of bulk jobs: create (CSV + ZIP upload, or the order form, minted within the
// request when small), read, list, retry, cancel, downloads, public media, cost preview and
// the CSV template. Job creation and downloads have their own modules (ingest.ts,
// exporter.ts); runs go to Restate (workflows/submit.ts); all SQL is in the *store.ts files.
import { HallmarkError, invalidParam, missingParam, notFound, type Logger } from '@hallmark/kit';
import { templateCsv } from './domain/export.js';
import {
  isFinished,
  JOB_STATUSES,
  type ItemVoucher,
  type JobRecord,
  type JobStatus,
  type Scope,
} from './domain/job.js';
import { csvChunks, zipChunks, type ExportDeps } from './exporter.js';
import { cellsOfItem, applyFix } from './domain/row-fix.js';
import { JobCreator, MAX_JOB_ITEMS } from './ingest.js';
import { ItemsStore, type FixedItem } from './items-store.js';
import type { MediaArchive } from './media-archive.js';
import type { Medium, MediaStore } from './media-store.js';
import type { JobsStore, RowErrorAt } from './store.js';
import { submitRun, type JobRuns } from './workflows/submit.js';

/** Row errors shown per job in a list. */
const LIST_ERRORS = 100;

export interface Pricing {
  unitPrice: number;
  currency: string;
  gasPerCertificate: number;
  gasPerBatch: number;
  batchSize: number;
}

export interface BulkServiceDeps {
  jobs: JobsStore;
  media: MediaStore;
  /** The certificates service's media store (ZIP images go there). */
  archive?: MediaArchive;
  exports: Omit<ExportDeps, 'media' | 'decrypt' | 'archive'>;
  ingress: JobRuns;
  log: Logger;
  syncMaxItems: number;
  pricing: Pricing;
  /** How long a synchronous order job may take within the request. */
  syncTimeoutMs?: number;
}

/** A job with what its answer shows: row errors, and vouchers once read. */
export interface JobView {
  job: JobRecord;
  errors?: { row: number; error: string }[];
  vouchers?: ItemVoucher[];
  /** With a page of vouchers: the cursor of the next page, when there is one. */
  nextVouchersAfter?: string;
  /** With a limit on errors: the job has more than `errors` holds. */
  moreErrors?: boolean;
}

export interface Download {
  content: Buffer;
  contentType: string;
  filename: string;
}

/** A download as it is made: the file's name and type, then its bytes in order. */
export interface DownloadStream {
  contentType: string;
  filename: string;
  chunks: AsyncIterable<Buffer>;
}

/** Vouchers per page of StreamJobVouchers (and the most one GetJob page may ask for). */
export const VOUCHER_PAGE = 1000;
/** Row errors per page of StreamJobErrors. */
const ERROR_PAGE = 2000;

/** A vouchers cursor: the idx of the last item of the previous page. */
function afterIdxOf(cursor: string): number {
  if (cursor === '') return -1;
  if (!/^(0|[1-9][0-9]{0,8})$/.test(cursor)) {
    throw invalidParam('vouchersCursor', 'vouchersCursor must be the nextCursor of a previous page.');
  }
  return Number(cursor);
}

function requireJobId(id: string): string {
  if (!id) throw missingParam('jobId');
  if (!/^job_[A-Za-z0-9]{24}$/.test(id))
    throw new HallmarkError('resource_not_found', { message: `No such job: '${id}'.` });
  return id;
}

export class BulkService {
  private readonly creator: JobCreator;
  private readonly items: ItemsStore;

  constructor(private readonly deps: BulkServiceDeps) {
    this.creator = new JobCreator(deps.jobs, deps.media, deps.archive);
    this.items = new ItemsStore(deps.jobs);
  }

  /**
   * Corrects a failed row of a finished CSV job in place, validated as at upload; the row
   * becomes a failed item the next retry processes in the same job.
   */
  fixItem(scope: Scope, id: string, row: number, patch: Record<string, unknown>): Promise<FixedItem> {
    if (!Number.isInteger(row) || row < 1) throw notFound('row', String(row));
    return this.items.fix(scope, requireJobId(id), row, (input, contacts, keepsImage) =>
      applyFix(row, cellsOfItem(input, contacts), patch, keepsImage),
    );
  }

  private async full(job: JobRecord, withVouchers = true, errorsLimit = 0): Promise<JobView> {
    const { jobs } = this.deps;
    return {
      job,
      ...(await this.firstErrors(job.id, errorsLimit)),
      vouchers: withVouchers ? await jobs.vouchers(job.id) : [],
    };
  }

  /** The first `limit` row errors (0: all), and whether there are more. */
  private async firstErrors(jobId: string, limit: number): Promise<Pick<JobView, 'errors' | 'moreErrors'>> {
    if (limit <= 0) return { errors: await this.deps.jobs.errors(jobId) };
    const errors = await this.deps.jobs.errors(jobId, limit + 1);
    return { errors: errors.slice(0, limit), moreErrors: errors.length > limit };
  }

  private submit(job: JobRecord) {
    const { ingress, jobs, log } = this.deps;
    return submitRun(ingress, jobs, job.id, job.pass, log);
  }

  async createCsvJob(
    scope: Scope,
    input: { csv: Buffer; zip?: Buffer; createBatch: boolean; csvFilename?: string },
  ): Promise<JobView> {
    if (input.csv.length === 0) throw invalidParam('metadata', 'The CSV file is empty.');
    const job = await this.creator.createCsvJob(scope, input);
    await this.submit(job);
    return { job, errors: await this.deps.jobs.errors(job.id) };
  }

  async createOrderJob(scope: Scope, idempotencyKey: string, bodyJson: string): Promise<JobView> {
    const { jobs, ingress, log } = this.deps;
    if (!idempotencyKey) throw missingParam('Idempotency-Key');
    const job = await this.creator.createOrderJob(scope, idempotencyKey, bodyJson);
    if (job.totalCount <= this.deps.syncMaxItems) {
      // Small orders are minted within the request; a run that outlasts the wait goes on
      // in the background and the caller gets the pending answer.
      const done = await ingress
        .call(job.id, job.pass, this.deps.syncTimeoutMs ?? 45_000)
        .catch((err: unknown) => {
          log.warn({ err, jobId: job.id }, 'synchronous run not completed; continuing in the background');
          return null;
        });
      if (done) await jobs.markSubmitted(job.id, job.pass);
      else await this.submit(job);
    } else {
      await this.submit(job);
    }
    return this.full(await jobs.get(scope, job.id));
  }

  /**
   * A job; with `page.limit` its vouchers are one keyset page after `page.after` (the
   * previous page's `nextVouchersAfter`), else all of them (internal callers of small jobs).
   */
  async getJob(
    scope: Scope,
    id: string,
    includeVouchers: boolean,
    page: { limit: number; after: string } = { limit: 0, after: '' },
    errorsLimit = 0,
  ): Promise<JobView> {
    const { jobs } = this.deps;
    const job = await jobs.get(scope, requireJobId(id));
    const afterIdx = afterIdxOf(page.after);
    // Results are read once the job has ended: polls of a running 50,000-item job stay
    // cheap (progress is in the counts) and the service's memory stays flat.
    if (!(includeVouchers && isFinished(job.status) && page.limit > 0)) {
      return this.full(job, includeVouchers && isFinished(job.status), errorsLimit);
    }
    if (page.limit > VOUCHER_PAGE) {
      throw invalidParam('vouchersLimit', `vouchersLimit must be between 1 and ${VOUCHER_PAGE}.`);
    }
    const rows = await jobs.vouchers(job.id, undefined, page.limit + 1, afterIdx);
    const vouchers = rows.slice(0, page.limit);
    return {
      job,
      ...(await this.firstErrors(job.id, errorsLimit)),
      vouchers,
      nextVouchersAfter: rows.length > page.limit ? String(vouchers[vouchers.length - 1]!.idx) : undefined,
    };
  }

  /** Every row error of a job, in row order, page by page from the database. */
  async *jobErrorPages(scope: Scope, id: string): AsyncGenerator<RowErrorAt[]> {
    const { jobs } = this.deps;
    const job = await jobs.get(scope, requireJobId(id));
    for (let after = -1; ;) {
      const page = await jobs.errors(job.id, ERROR_PAGE, after);
      if (page.length === 0) return;
      yield page;
      if (page.length < ERROR_PAGE) return;
      after = page[page.length - 1]!.idx;
    }
  }

  /** Every voucher of a finished job, page by page from the database (none while it runs). */
  async *jobVoucherPages(scope: Scope, id: string): AsyncGenerator<ItemVoucher[]> {
    const { jobs } = this.deps;
    const job = await jobs.get(scope, requireJobId(id));
    if (!isFinished(job.status)) return;
    for (let after = -1; ;) {
      const page = await jobs.vouchers(job.id, undefined, VOUCHER_PAGE, after);
      if (page.length === 0) return;
      yield page;
      if (page.length < VOUCHER_PAGE) return;
      after = page[page.length - 1]!.idx;
    }
  }

  async listJobs(
    scope: Scope,
    q: { status?: string; page?: number; limit?: number },
  ): Promise<{ jobs: JobView[]; page: number; limit: number; total: number }> {
    const { jobs } = this.deps;
    let status: JobStatus | undefined;
    if (q.status) {
      if (!JOB_STATUSES.includes(q.status as JobStatus)) {
        throw invalidParam('status', `status must be one of ${JOB_STATUSES.join(', ')}.`);
      }
      status = q.status as JobStatus;
    }
    const page = q.page || 1;
    const limit = q.limit || 20;
    if (page < 1) throw invalidParam('page', 'page must be at least 1.');
    if (limit < 1 || limit > 100) throw invalidParam('limit', 'limit must be between 1 and 100.');
    const { jobs: list, total } = await jobs.list(scope, status, page, limit);
    // Each listed job shows its first row errors (GET /:jobId has them all).
    const listed = await Promise.all(
      list.map(async (j) => ({
        job: j,
        errors: j.failedCount > 0 ? await jobs.errors(j.id, LIST_ERRORS) : [],
      })),
    );
    return { jobs: listed, page, limit, total };
  }

  async retryJob(scope: Scope, id: string): Promise<{ job: JobRecord; retried: number; message: string }> {
    const { job, retried } = await this.deps.jobs.retry(scope, requireJobId(id));
    if (retried > 0) await this.submit(job);
    const message =
      retried > 0
        ? `Retrying ${retried} failed item(s).`
        : job.status === 'queued' || job.status === 'processing'
          ? 'The job is still running; nothing to retry yet.'
          : 'No failed items to retry.';
    return { job, retried, message };
  }

  cancelJob(scope: Scope, id: string): Promise<JobRecord> {
    return this.deps.jobs.cancel(scope, requireJobId(id));
  }

  /** The results file of a job as it is made (checked and named before any byte). */
  async exportJob(scope: Scope, id: string, format: string): Promise<DownloadStream> {
    const { jobs, media, exports } = this.deps;
    if (format !== 'csv' && format !== 'zip') throw invalidParam('type', 'type must be csv or zip.');
    const job = await jobs.get(scope, requireJobId(id));
    const deps: ExportDeps = {
      ...exports,
      media,
      archive: this.deps.archive,
      decrypt: (s) => jobs.decrypt(s),
    };
    return format === 'csv'
      ? { contentType: 'text/csv; charset=utf-8', filename: `${job.id}.csv`, chunks: csvChunks(deps, job) }
      : { contentType: 'application/zip', filename: `${job.id}.zip`, chunks: zipChunks(deps, job) };
  }

  /** Public: the media id is the capability (see media-store.ts). */
  async getMedia(id: string): Promise<Medium & { bytes: Buffer }> {
    const found = await this.deps.media.publicMedium(id);
    if (!found) throw notFound('media', id);
    if (found.bytes) return { ...found, bytes: found.bytes };
    // Moved to the certificates service (the gateway asks there first).
    if (!found.archivedSha256 || !this.deps.archive) throw notFound('media', id);
    return { ...found, bytes: await this.deps.archive.get(found.archivedSha256) };
  }

  costPreview(count: number) {
    if (!Number.isInteger(count) || count < 1 || count > MAX_JOB_ITEMS) {
      throw invalidParam('count', `count must be an integer from 1 to ${MAX_JOB_ITEMS}.`);
    }
    const p = this.deps.pricing;
    const batches = Math.ceil(count / p.batchSize);
    const gas = count * p.gasPerCertificate + batches * p.gasPerBatch;
    return {
      count,
      currency: p.currency,
      unitPrice: p.unitPrice,
      totalPrice: count * p.unitPrice,
      estimatedGas: gas,
      estimatedGasPerCertificate: Math.ceil(gas / count),
      batches,
    };
  }

  csvTemplate(): Download {
    return {
      content: Buffer.from(templateCsv(), 'utf8'),
      contentType: 'text/csv; charset=utf-8',
      filename: 'bulk-mint-template.csv',
    };
  }
}
