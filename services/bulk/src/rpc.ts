// gRPC handlers: proto <-> service calls, nothing else.
import { HallmarkError, invalidParam, scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { BulkServiceServer, Job, JobVoucher } from '@hallmark/proto/bulk/v1/bulk';
import { estimatedCompletion, estimatedSeconds, type ItemVoucher, type JobRecord } from './domain/job.js';
import type { BulkService, Download, JobView } from './service.js';

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
    retried_at: job.retriedAt?.toISOString(),
    estimated_completion_time: eta?.toISOString(),
    errors: (extra.errors ?? []).map((e) => ({ row: e.row, error: e.error })),
    error: job.error ?? undefined,
    vouchers: (extra.vouchers ?? []).map(voucherToProto),
    external_context_json: job.externalContext ? JSON.stringify(job.externalContext) : undefined,
    idempotency_key: job.idempotencyKey ?? undefined,
    processing_time_ms: job.completedAt ? job.completedAt.getTime() - job.createdAt.getTime() : undefined,
    livemode: job.livemode,
    estimated_duration_s: estimatedSeconds(Math.max(0, job.totalCount - job.processedCount)),
    more_errors: false,
  };
}

const viewToProto = (v: JobView): Job => ({
  ...jobToProto(v.job, { errors: v.errors, vouchers: v.vouchers }),
  next_vouchers_after: v.nextVouchersAfter,
  more_errors: v.moreErrors ?? false,
});

/** Most bytes of one ExportJob answer's content (the whole file in one message). */
const UNARY_EXPORT_MAX = 96 * 1024 * 1024;

const downloadToProto = (d: Download) => ({
  content: d.content,
  content_type: d.contentType,
  filename: d.filename,
});

export function createBulkHandlers(service: BulkService): AsyncHandlers<BulkServiceServer> {
  return {
    async createCsvJob(req) {
      const view = await service.createCsvJob(scopeOf(req.principal), {
        csv: Buffer.from(req.csv ?? []),
        zip: req.zip && req.zip.length > 0 ? Buffer.from(req.zip) : undefined,
        createBatch: req.create_batch,
        csvFilename: req.csv_filename,
      });
      return viewToProto(view);
    },

    async createOrderJob(req) {
      return viewToProto(
        await service.createOrderJob(scopeOf(req.principal), req.idempotency_key, req.body_json),
      );
    },

    async getJob(req) {
      return viewToProto(
        await service.getJob(
          scopeOf(req.principal),
          req.job_id,
          req.include_vouchers,
          { limit: req.vouchers_limit, after: req.vouchers_after },
          req.errors_limit,
        ),
      );
    },

    async *streamJobErrors(req) {
      for await (const page of service.jobErrorPages(scopeOf(req.principal), req.job_id)) {
        yield { errors: page.map((e) => ({ row: e.row, error: e.error })) };
      }
    },

    async *streamJobVouchers(req) {
      for await (const page of service.jobVoucherPages(scopeOf(req.principal), req.job_id)) {
        yield { vouchers: page.map(voucherToProto) };
      }
    },

    async listJobs(req) {
      const { jobs, page, limit, total } = await service.listJobs(scopeOf(req.principal), {
        status: req.status,
        page: req.page?.page,
        limit: req.page?.limit,
      });
      return {
        jobs: jobs.map(viewToProto),
        page: { page, limit, total, total_pages: Math.ceil(total / limit) },
      };
    },

    async retryJob(req) {
      const { job, retried, message } = await service.retryJob(scopeOf(req.principal), req.job_id);
      return { job: jobToProto(job), retried_count: retried, message };
    },

    async fixItem(req) {
      let fields: unknown;
      try {
        fields = JSON.parse(req.fields_json || '{}');
      } catch {
        throw new HallmarkError('malformed_json', { message: 'fields_json is not valid JSON.' });
      }
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
        throw invalidParam('fields', 'The corrected fields are an object of column → value.');
      const item = await service.fixItem(
        scopeOf(req.principal),
        req.job_id,
        req.row,
        fields as Record<string, unknown>,
      );
      return { row: item.row, name: item.name, status: item.status, error: item.error ?? '' };
    },

    async cancelJob(req) {
      return jobToProto(await service.cancelJob(scopeOf(req.principal), req.job_id));
    },

    async exportJob(req) {
      // The whole file in one answer (kept for callers of small jobs; ExportJobStream is flat).
      const d = await service.exportJob(scopeOf(req.principal), req.job_id, req.format);
      const parts: Buffer[] = [];
      let size = 0;
      for await (const chunk of d.chunks) {
        size += chunk.length;
        if (size > UNARY_EXPORT_MAX) {
          throw new HallmarkError('validation_failed', {
            param: 'type',
            message: 'The results are too large for one answer; use ExportJobStream.',
          });
        }
        parts.push(chunk);
      }
      return { content: Buffer.concat(parts), content_type: d.contentType, filename: d.filename };
    },

    async *exportJobStream(req) {
      const d = await service.exportJob(scopeOf(req.principal), req.job_id, req.format);
      yield { content: Buffer.alloc(0), content_type: d.contentType, filename: d.filename };
      for await (const chunk of d.chunks) yield { content: chunk, content_type: '', filename: '' };
    },

    async getMedia(req) {
      const m = await service.getMedia(req.media_id);
      return { content: m.bytes, content_type: m.contentType, sha256: m.sha256 };
    },

    async costPreview(req) {
      const p = service.costPreview(req.count);
      return {
        count: p.count,
        currency: p.currency,
        unit_price: p.unitPrice,
        total_price: p.totalPrice,
        estimated_gas: p.estimatedGas,
        estimated_gas_per_certificate: p.estimatedGasPerCertificate,
        batches: p.batches,
      };
    },

    async csvTemplate() {
      return downloadToProto(service.csvTemplate());
    },
  };
}
