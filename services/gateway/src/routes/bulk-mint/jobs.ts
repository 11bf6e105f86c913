// Reading and managing bulk jobs: status (CSV form `{success, data: job}`, order form
// `{success, job}`), list, retry and cancel. The results download is in download.ts.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, idParams, int, list, oneOf, str, Type, wrapped } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { CANCEL, POLL, RETRY, TAGS } from './common.js';
import { CsvJob, jobStatus, JobStatus, STATUSES } from './job.js';
import { presentCsvJob, presentOrderJob } from './present.js';
import { streamedCsvJob, streamedOrderJob } from './stream.js';

/** Vouchers per status answer unless the caller asks otherwise (the most a page may hold). */
export const VOUCHERS_PAGE = 1000;
/** Row errors a CSV-form status carries inline; a job with more streams them all. */
const ERRORS_INLINE = 1000;

const jobParams = idParams('jobId');
const apiKeyQuery = Type.Optional(
  Type.String({ maxLength: 64, description: 'Discouraged; send the key in a header' }),
);

export const getBulkMintJob = defineEndpoint({
  method: 'GET',
  url: '/api/bulk-mint/:jobId',
  operationId: 'getBulkMintJob',
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
  access: POLL,
  params: jobParams,
  querystring: closed({
    vouchersLimit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: VOUCHERS_PAGE,
        default: VOUCHERS_PAGE,
        description: 'Order form: most vouchers in `results.vouchers` (one page; default and most 1000)',
      }),
    ),
    vouchersCursor: Type.Optional(
      Type.String({
        maxLength: 16,
        description: 'Order form: the page after this one: `results.nextCursor` of the previous answer',
      }),
    ),
    vouchers: Type.Optional(
      oneOf(['all'], 'Order form: `all` answers every voucher in one streamed answer (`nextCursor` null)'),
    ),
    api_key: apiKeyQuery,
  }),
  responses: {
    200: {
      description:
        'The job in the form it was created in: `{success, job}` (order) or `{success, data}` (CSV)',
      schema: JobStatus,
      // The order form's vouchers carry their metadata as the order line had it.
      contentType: 'application/json',
    },
  },
  handler: async (request, { clients, reply }) => {
    const q = request.query;
    const all = q.vouchers === 'all';
    const job = await clients.bulk.getJob(
      {
        principal: principalOf(request),
        job_id: request.params.jobId,
        include_vouchers: !all,
        vouchers_limit: q.vouchersLimit ?? VOUCHERS_PAGE,
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
});

export const listBulkMintJobs = defineEndpoint({
  method: 'GET',
  url: '/api/bulk-mint',
  operationId: 'listBulkMintJobs',
  tags: TAGS,
  summary: 'List bulk jobs, newest first',
  description: 'Jobs in the CSV-form shape, with `pagination:{page, limit, totalPages, totalItems}`.',
  access: POLL,
  querystring: closed({
    status: Type.Optional(oneOf(STATUSES)),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    api_key: apiKeyQuery,
  }),
  responses: {
    200: {
      description: 'A page of jobs, newest first',
      schema: wrapped(
        Type.Object({
          jobs: list(CsvJob, 100),
          pagination: Type.Object({ page: int(), limit: int(), totalPages: int(), totalItems: int() }),
        }),
      ),
    },
  },
  handler: async (request, { clients }) => {
    // AJV has filled in the defaults; the fallbacks only satisfy the type.
    const q = { ...request.query, page: request.query.page ?? 1, limit: request.query.limit ?? 20 };
    const res = await clients.bulk.listJobs(
      { principal: principalOf(request), status: q.status, page: { page: q.page, limit: q.limit } },
      { idempotent: true },
    );
    const page = res.page;
    return {
      success: true as const,
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
});

export const retryBulkMintJob = defineEndpoint({
  method: 'POST',
  url: '/api/bulk-mint/:jobId/retry',
  operationId: 'retryBulkMintJob',
  tags: TAGS,
  summary: 'Reprocess the failed items of a job (safe to repeat)',
  description: 'Needs `bulk:retry`. `{success, data:{jobId, status, retriedCount, message}}`.',
  access: RETRY,
  params: jobParams,
  responses: {
    200: {
      description: 'The failed items are queued again',
      schema: wrapped(
        Type.Object({ jobId: str(64), status: jobStatus, retriedCount: int(), message: str(500) }),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.bulk.retryJob({
      principal: principalOf(request),
      job_id: request.params.jobId,
    });
    const job = res.job!;
    return {
      success: true as const,
      data: { jobId: job.id, status: job.status, retriedCount: res.retried_count, message: res.message },
    };
  },
});

export const cancelBulkMintJob = defineEndpoint({
  method: 'POST',
  url: '/api/bulk-mint/:jobId/cancel',
  operationId: 'cancelBulkMintJob',
  tags: TAGS,
  summary: 'Cancel a queued or processing job',
  description:
    'Certificates already minted stay and their results stay downloadable; cancelling may lag while ' +
    'a batch is processing. Rate group bulk_poll. `{success, data:{jobId, status, message, ' +
    'processedCount, totalCount}}`.',
  access: CANCEL,
  params: jobParams,
  responses: {
    200: {
      description: 'The job’s state after the cancel (a finished job is left as it was)',
      schema: wrapped(
        Type.Object({
          jobId: str(64),
          status: jobStatus,
          message: str(500),
          processedCount: int(),
          totalCount: int(),
        }),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const job = await clients.bulk.cancelJob(
      { principal: principalOf(request), job_id: request.params.jobId },
      { idempotent: true },
    );
    const message =
      job.status === 'cancelled'
        ? 'Job cancelled. Certificates already minted are kept and stay downloadable.'
        : `Job is ${job.status}; nothing to cancel.`;
    return {
      success: true as const,
      data: {
        jobId: job.id,
        status: job.status,
        message,
        processedCount: job.processed_count,
        totalCount: job.total_count,
      },
    };
  },
});
