// Reading and managing bulk jobs: status (CSV form `{success, data: job}`, order form
// `{success, job}`), list, retry, cancel, and the results download.
import type { Job } from '@hallmark/proto/bulk/v1/bulk';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { Clients } from '../../clients.js';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { CANCEL, DOWNLOAD, POLL, RETRY, TAGS } from './common.js';
import { attachment, presentCsvJob, presentOrderJob, presentVoucherResult } from './present.js';

/** Vouchers per status answer unless the caller asks otherwise (the most a page may hold). */
export const VOUCHERS_PAGE = 1000;

const statusQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    vouchersLimit: {
      type: 'integer',
      minimum: 1,
      maximum: VOUCHERS_PAGE,
      default: VOUCHERS_PAGE,
      description: 'Order form: most vouchers in `results.vouchers` (one page; default and most 1000)',
    },
    vouchersCursor: {
      type: 'string',
      maxLength: 16,
      description: 'Order form: the page after this one: `results.nextCursor` of the previous answer',
    },
    vouchers: {
      type: 'string',
      enum: ['all'],
      description: 'Order form: `all` answers every voucher in one streamed answer (`nextCursor` null)',
    },
    api_key: { type: 'string', maxLength: 64, description: 'Discouraged; send the key in a header' },
  },
} as const;

const MARK = '\u0000list\u0000';
/** Row errors a CSV-form status carries inline; a job with more streams them all. */
const ERRORS_INLINE = 1000;

/**
 * A JSON answer whose one long array is written page by page as the bulk service streams it,
 * so neither process ever holds it all: `shape` is the answer with MARK where the array goes.
 */
function streamedAnswer<T>(
  shape: unknown,
  pages: AsyncIterable<T[]>,
  present: (item: T) => unknown,
): Readable {
  const body = JSON.stringify(shape);
  const at = body.indexOf(JSON.stringify(MARK));
  const head = body.slice(0, at);
  const tail = body.slice(at + JSON.stringify(MARK).length);
  return Readable.from(
    (async function* () {
      yield `${head}[`;
      let first = true;
      for await (const page of pages) {
        if (page.length === 0) continue;
        const items = page.map((item) => JSON.stringify(present(item))).join(',');
        yield first ? items : `,${items}`;
        first = false;
      }
      yield `]${tail}`;
    })(),
  );
}

async function* pagesOf<P, T>(stream: AsyncIterable<P>, items: (page: P) => T[]): AsyncIterable<T[]> {
  for await (const page of stream) yield items(page);
}

/** The order-form status with every voucher (StreamJobVouchers), streamed. */
function streamedOrderJob(clients: Clients, request: Parameters<typeof principalOf>[0], job: Job): Readable {
  const principal = principalOf(request);
  return streamedAnswer(
    { success: true, job: { ...presentOrderJob(job), results: { vouchers: MARK, nextCursor: null } } },
    pagesOf(clients.bulkStreams.streamJobVouchers({ principal, job_id: job.id }), (p) => p.vouchers),
    presentVoucherResult,
  );
}

/** The CSV-form status of a job with more row errors than fit inline: every one (StreamJobErrors), streamed. */
function streamedCsvJob(clients: Clients, request: Parameters<typeof principalOf>[0], job: Job): Readable {
  const principal = principalOf(request);
  return streamedAnswer(
    { success: true, data: { ...presentCsvJob(job), errors: MARK } },
    pagesOf(clients.bulkStreams.streamJobErrors({ principal, job_id: job.id }), (p) => p.errors),
    (e) => ({ row: e.row, error: e.error }),
  );
}

const STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'];

const downloadParams = {
  type: 'object',
  required: ['jobId', 'type'],
  additionalProperties: false,
  properties: {
    jobId: { type: 'string', minLength: 1, maxLength: 64 },
    type: { type: 'string', enum: ['csv', 'zip'] },
  },
};

export default async function jobRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  const jobId = idParam('jobId');

  app.get<{ Params: { jobId: string } }>(
    '/api/bulk-mint/:jobId',
    {
      config: POLL,
      schema: {
        tags: TAGS,
        summary: 'Status of a bulk job',
        description:
          'CSV form: `{success, data:{jobId, status, totalCount, processedCount, successCount, failedCount, ' +
          'createdAt, updatedAt, completedAt?, estimatedCompletionTime? (while processing), errors:[{row, error}], ' +
          'error?}}`. Order form: `{success, job:{id, status (pending|processing|completed|failed|cancelled), ' +
          'progress:{current, total, percentage}, summary:{totalItems, successCount, failureCount (alias failedCount), processingTime? (ms)}, ' +
          'results:{vouchers, nextCursor}, createdAt, completedAt}}`. `results.vouchers` is paginated: at most ' +
          '`vouchersLimit` (default and most 1000) in item order; `results.nextCursor` names the next page ' +
          '(send it as `vouchersCursor`) and is null on the last one, so a job of up to 1000 vouchers answers ' +
          'them all at once as before. `vouchers=all` answers every voucher in one streamed answer. ' +
          'CSV form: `errors` holds every failed row; a job with more than 1000 answers them in one streamed answer.',
        params: jobId,
        querystring: statusQuery,
      },
    },
    async (request, reply) => {
      const q = request.query as { vouchersLimit: number; vouchersCursor?: string; vouchers?: 'all' };
      const all = q.vouchers === 'all';
      const job = await clients.bulk.getJob(
        {
          principal: principalOf(request),
          job_id: request.params.jobId,
          include_vouchers: !all,
          vouchers_limit: q.vouchersLimit,
          vouchers_after: all ? '' : (q.vouchersCursor ?? ''),
          errors_limit: ERRORS_INLINE,
        },
        { idempotent: true },
      );
      const json = 'application/json; charset=utf-8';
      if (job.form !== 'order') {
        if (!job.more_errors) return { success: true, data: presentCsvJob(job) };
        return reply.type(json).send(streamedCsvJob(clients, request, job));
      }
      if (!all) return { success: true, job: presentOrderJob(job) };
      return reply.type(json).send(streamedOrderJob(clients, request, job));
    },
  );

  app.get<{ Querystring: { status?: string; page: number; limit: number } }>(
    '/api/bulk-mint',
    {
      config: POLL,
      schema: {
        tags: TAGS,
        summary: 'List bulk jobs, newest first',
        description: 'Jobs in the CSV-form shape, with `pagination:{page, limit, totalPages, totalItems}`.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: STATUSES },
            page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            api_key: { type: 'string', maxLength: 64, description: 'Discouraged; send the key in a header' },
          },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const res = await clients.bulk.listJobs(
        { principal: principalOf(request), status: q.status, page: { page: q.page, limit: q.limit } },
        { idempotent: true },
      );
      const page = res.page;
      return {
        success: true,
        data: {
          jobs: res.jobs.map(presentCsvJob),
          pagination: {
            page: page?.page ?? q.page,
            limit: page?.limit ?? q.limit,
            totalPages: page?.total_pages ?? 0,
            totalItems: page?.total ?? 0,
          },
        },
      };
    },
  );

  app.post<{ Params: { jobId: string } }>(
    '/api/bulk-mint/:jobId/retry',
    {
      config: RETRY,
      schema: {
        tags: TAGS,
        summary: 'Reprocess the failed items of a job (safe to repeat)',
        description: 'Needs `bulk:retry`. `{success, data:{jobId, status, retriedCount, message}}`.',
        params: jobId,
      },
    },
    async (request) => {
      const res = await clients.bulk.retryJob({
        principal: principalOf(request),
        job_id: request.params.jobId,
      });
      const job = res.job!;
      return {
        success: true,
        data: { jobId: job.id, status: job.status, retriedCount: res.retried_count, message: res.message },
      };
    },
  );

  app.post<{ Params: { jobId: string } }>(
    '/api/bulk-mint/:jobId/cancel',
    {
      config: CANCEL,
      schema: {
        tags: TAGS,
        summary: 'Cancel a queued or processing job',
        description:
          'Certificates already minted stay and their results stay downloadable; cancelling may lag while ' +
          'a batch is processing. Rate group bulk_poll. `{success, data:{jobId, status, message, ' +
          'processedCount, totalCount}}`.',
        params: jobId,
      },
    },
    async (request) => {
      const job = await clients.bulk.cancelJob(
        { principal: principalOf(request), job_id: request.params.jobId },
        { idempotent: true },
      );
      const message =
        job.status === 'cancelled'
          ? 'Job cancelled. Certificates already minted are kept and stay downloadable.'
          : `Job is ${job.status}; nothing to cancel.`;
      return {
        success: true,
        data: {
          jobId: job.id,
          status: job.status,
          message,
          processedCount: job.processed_count,
          totalCount: job.total_count,
        },
      };
    },
  );

  app.get<{ Params: { jobId: string; type: 'csv' | 'zip' } }>(
    '/api/bulk-mint/:jobId/download/:type',
    {
      config: DOWNLOAD,
      schema: {
        tags: TAGS,
        summary: 'Download a job’s results: csv (one row per item) or zip (images and metadata)',
        description:
          'csv columns: row, name, status, certificateId, voucherId, referenceNumber, recipientEmail, error. ' +
          'Sent as an attachment.',
        params: downloadParams,
      },
    },
    async (request, reply) => {
      const { jobId: id, type } = request.params;
      // The file streams from the bulk service as it is made (ExportJobStream): its first
      // message names it (and fails before any byte for an unknown job), the rest are bytes.
      const stream = clients.bulkStreams.exportJobStream({
        principal: principalOf(request),
        job_id: id,
        format: type,
      });
      const chunks = stream[Symbol.asyncIterator]();
      const first = await chunks.next();
      const file = first.done ? undefined : first.value;
      const body = Readable.from(
        (async function* () {
          for (let c = await chunks.next(); !c.done; c = await chunks.next()) {
            if (c.value.content.length > 0) yield Buffer.from(c.value.content);
          }
        })(),
      );
      return reply
        .header(
          'content-type',
          file?.content_type || (type === 'csv' ? 'text/csv; charset=utf-8' : 'application/zip'),
        )
        .header(
          'content-disposition',
          attachment(file?.filename || `${id}-results.${type}`, `results.${type}`),
        )
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(body);
    },
  );
}
