// gRPC handlers: proto <-> domain, nothing else.
import {
  HallmarkError,
  invalidParam,
  missingParam,
  notFound,
  type AsyncHandlers,
  type Logger,
} from '@hallmark/kit';
import type { BulkServiceServer, Job, JobVoucher } from '@hallmark/proto/bulk/v1/bulk';
import type { Principal } from '@hallmark/proto/common/v1/common';
import { templateCsv } from './domain/export.js';
import {
  estimatedCompletion,
  estimatedSeconds,
  isFinished,
  JOB_STATUSES,
  type ItemVoucher,
  type JobRecord,
  type JobStatus,
  type Scope,
} from './domain/job.js';
import { exportCsv, exportZip } from './exporter.js';
import { JobCreator, MAX_JOB_ITEMS } from './ingest.js';
import type { JobsStore } from './store.js';
import { submitRun, type RestateIngress } from './workflows/submit.js';

export interface HandlerDeps {
  jobs: JobsStore;
  ingress: RestateIngress;
  log: Logger;
  syncMaxItems: number;
  pricing: {
    unitPrice: number;
    currency: string;
    gasPerCertificate: number;
    gasPerBatch: number;
    batchSize: number;
  };
  /** How long a synchronous order job may take within the request. */
  syncTimeoutMs?: number;
}

/** Row errors shown per job in a list. */
const LIST_ERRORS = 100;

export function scopeOf(p: Principal | undefined): Scope {
  if (!p?.enterprise_id) throw missingParam('principal');
  return {
    enterpriseId: p.enterprise_id,
    livemode: p.livemode,
    actorId: p.actor_id,
    actorType: p.actor_type,
  };
}

function voucherToProto(v: ItemVoucher): JobVoucher {
  return {
    id: v.voucherId,
    url: v.url,
    reference_number: v.referenceNumber,
    metadata_json: v.metadataJson,
    certificate_id: v.certificateId,
    token_id: v.tokenId ?? undefined,
    transaction_hash: v.transactionHash ?? undefined,
    block_number: v.blockNumber ?? undefined,
    line_item_gid: v.lineItemGid ?? undefined,
    row: v.row,
    expires_at: v.expiresAt?.toISOString() ?? '',
  };
}

export function jobToProto(
  job: JobRecord,
  extra: { errors?: { row: number; error: string }[]; vouchers?: ItemVoucher[] } = {},
  now = new Date(),
): Job {
  const eta = estimatedCompletion(job, now);
  return {
    id: job.id,
    form: job.form,
    status: job.status,
    total_count: job.totalCount,
    processed_count: job.processedCount,
    success_count: job.successCount,
    failed_count: job.failedCount,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    completed_at: job.completedAt?.toISOString(),
    estimated_completion_time: eta?.toISOString(),
    errors: extra.errors ?? [],
    error: job.error ?? undefined,
    vouchers: (extra.vouchers ?? []).map(voucherToProto),
    external_context_json: job.externalContext ? JSON.stringify(job.externalContext) : undefined,
    idempotency_key: job.idempotencyKey ?? undefined,
    processing_time_ms: job.completedAt ? job.completedAt.getTime() - job.createdAt.getTime() : undefined,
    livemode: job.livemode,
    estimated_duration_s: estimatedSeconds(Math.max(0, job.totalCount - job.processedCount)),
  };
}

export function createBulkHandlers(deps: HandlerDeps): AsyncHandlers<BulkServiceServer> {
  const { jobs, ingress, log } = deps;
  const creator = new JobCreator(jobs);
  const full = async (job: JobRecord, withVouchers = true) =>
    jobToProto(job, {
      errors: await jobs.errors(job.id),
      vouchers: withVouchers ? await jobs.vouchers(job.id) : [],
    });

  return {
    async createCsvJob(req) {
      const scope = scopeOf(req.principal);
      if (!req.csv || req.csv.length === 0) throw invalidParam('metadata', 'The CSV file is empty.');
      const job = await creator.createCsvJob(scope, {
        csv: Buffer.from(req.csv),
        zip: req.zip && req.zip.length > 0 ? Buffer.from(req.zip) : undefined,
        createBatch: req.create_batch,
        csvFilename: req.csv_filename,
      });
      await submitRun(ingress, jobs, job.id, job.pass, log);
      return jobToProto(job, { errors: await jobs.errors(job.id) });
    },

    async createOrderJob(req) {
      const scope = scopeOf(req.principal);
      if (!req.idempotency_key) throw missingParam('Idempotency-Key');
      const job = await creator.createOrderJob(scope, req.idempotency_key, req.body_json);
      if (job.totalCount <= deps.syncMaxItems) {
        // Small orders are minted within the request; a run that outlasts the wait goes on
        // in the background and the caller gets the pending answer.
        const done = await ingress
          .call(job.id, job.pass, deps.syncTimeoutMs ?? 45_000)
          .catch((err: unknown) => {
            log.warn({ err, jobId: job.id }, 'synchronous run not completed; continuing in the background');
            return null;
          });
        if (done) await jobs.markSubmitted(job.id, job.pass);
        else await submitRun(ingress, jobs, job.id, job.pass, log);
      } else {
        await submitRun(ingress, jobs, job.id, job.pass, log);
      }
      return full(await jobs.get(scope, job.id));
    },

    async getJob(req) {
      const job = await jobs.get(scopeOf(req.principal), requireJobId(req.job_id));
      // Results are read once the job has ended: polls of a running 50,000-item job stay
      // cheap (progress is in the counts) and the service's memory stays flat.
      return full(job, req.include_vouchers && isFinished(job.status));
    },

    async listJobs(req) {
      const scope = scopeOf(req.principal);
      let status: JobStatus | undefined;
      if (req.status) {
        if (!JOB_STATUSES.includes(req.status as JobStatus)) {
          throw invalidParam('status', `status must be one of ${JOB_STATUSES.join(', ')}.`);
        }
        status = req.status as JobStatus;
      }
      const page = req.page?.page || 1;
      const limit = req.page?.limit || 20;
      if (page < 1) throw invalidParam('page', 'page must be at least 1.');
      if (limit < 1 || limit > 100) throw invalidParam('limit', 'limit must be between 1 and 100.');
      const { jobs: list, total } = await jobs.list(scope, status, page, limit);
      // Each listed job shows its first row errors (GET /:jobId has them all).
      const listed = await Promise.all(
        list.map(async (j) =>
          jobToProto(j, { errors: j.failedCount > 0 ? await jobs.errors(j.id, LIST_ERRORS) : [] }),
        ),
      );
      return {
        jobs: listed,
        page: { page, limit, total, total_pages: Math.ceil(total / limit) },
      };
    },

    async retryJob(req) {
      const scope = scopeOf(req.principal);
      const { job, retried } = await jobs.retry(scope, requireJobId(req.job_id));
      if (retried > 0) await submitRun(ingress, jobs, job.id, job.pass, log);
      return {
        job: jobToProto(job),
        retried_count: retried,
        message:
          retried > 0
            ? `Retrying ${retried} failed item(s).`
            : job.status === 'queued' || job.status === 'processing'
              ? 'The job is still running; nothing to retry yet.'
              : 'No failed items to retry.',
      };
    },

    async cancelJob(req) {
      return jobToProto(await jobs.cancel(scopeOf(req.principal), requireJobId(req.job_id)));
    },

    async exportJob(req) {
      const job = await jobs.get(scopeOf(req.principal), requireJobId(req.job_id));
      if (req.format === 'csv') {
        return {
          content: await exportCsv(jobs, job),
          content_type: 'text/csv; charset=utf-8',
          filename: `${job.id}.csv`,
        };
      }
      if (req.format === 'zip') {
        return {
          content: await exportZip(jobs, job),
          content_type: 'application/zip',
          filename: `${job.id}.zip`,
        };
      }
      throw invalidParam('type', 'type must be csv or zip.');
    },

    async getMedia(req) {
      const { rows } = await jobs.pool.query<{ content_type: string; sha256: string; bytes: Buffer }>(
        'SELECT content_type, sha256, bytes FROM media WHERE id = $1',
        [req.media_id],
      );
      if (!rows[0]) throw notFound('media', req.media_id);
      return { content: rows[0].bytes, content_type: rows[0].content_type, sha256: rows[0].sha256 };
    },

    async costPreview(req) {
      const count = req.count;
      if (!Number.isInteger(count) || count < 1 || count > MAX_JOB_ITEMS) {
        throw invalidParam('count', `count must be an integer from 1 to ${MAX_JOB_ITEMS}.`);
      }
      const p = deps.pricing;
      const batches = Math.ceil(count / p.batchSize);
      const gas = count * p.gasPerCertificate + batches * p.gasPerBatch;
      return {
        count,
        currency: p.currency,
        unit_price: p.unitPrice,
        total_price: count * p.unitPrice,
        estimated_gas: gas,
        estimated_gas_per_certificate: Math.ceil(gas / count),
        batches,
      };
    },

    async csvTemplate() {
      return {
        content: Buffer.from(templateCsv(), 'utf8'),
        content_type: 'text/csv; charset=utf-8',
        filename: 'bulk-mint-template.csv',
      };
    },
  };
}

function requireJobId(id: string): string {
  if (!id) throw missingParam('jobId');
  if (!/^job_[A-Za-z0-9]{24}$/.test(id))
    throw new HallmarkError('resource_not_found', { message: `No such job: '${id}'.` });
  return id;
}
