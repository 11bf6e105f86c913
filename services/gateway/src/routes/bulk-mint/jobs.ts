// Reading and managing bulk jobs: status (CSV form `{success, data: job}`, order form
// `{success, job}`), list, retry, cancel, and the results download.
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { CANCEL, DOWNLOAD, POLL, RETRY, TAGS } from './common.js';
import { attachment, presentCsvJob, presentOrderJob } from './present.js';

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
          'progress:{current, total, percentage}, summary:{totalItems, successCount, failureCount, processingTime? (ms)}, ' +
          'results:{vouchers}, createdAt, completedAt}}`.',
        params: jobId,
      },
    },
    async (request) => {
      const job = await clients.bulk.getJob(
        { principal: principalOf(request), job_id: request.params.jobId, include_vouchers: true },
        { idempotent: true },
      );
      return job.form === 'order'
        ? { success: true, job: presentOrderJob(job) }
        : { success: true, data: presentCsvJob(job) };
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
      const file = await clients.bulk.exportJob(
        { principal: principalOf(request), job_id: id, format: type },
        { idempotent: true },
      );
      return reply
        .header(
          'content-type',
          file.content_type || (type === 'csv' ? 'text/csv; charset=utf-8' : 'application/zip'),
        )
        .header(
          'content-disposition',
          attachment(file.filename || `${id}-results.${type}`, `results.${type}`),
        )
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(file.content);
    },
  );
}
