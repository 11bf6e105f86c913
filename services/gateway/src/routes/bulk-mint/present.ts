// The spec's bulk job shapes (Resources › Bulk mint job, CSV form and JSON (order) form),
// built from the proto Job. Pure, so the mapping is tested without a server.
import type { Job, JobVoucher } from '@hallmark/proto/bulk/v1/bulk';

/** The JSON form's states are pending, processing, completed, failed (cancelled stays). */
export const orderStatus = (status: string): string => (status === 'queued' ? 'pending' : status);

/** A voucher's metadata object; a record that cannot be read shows as empty, never a 500. */
function parseMetadata(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * CSV-form job: `{jobId, status, counts, createdAt, updatedAt, retriedAt?, completedAt?, …,
 * errors, error?}`. Both forms carry `failedCount` and `failureCount` (the same number): the
 * spec names it one way per form, and a client reading either name works with both.
 */
export function presentCsvJob(j: Job) {
  return {
    jobId: j.id,
    status: j.status,
    totalCount: j.total_count,
    processedCount: j.processed_count,
    successCount: j.success_count,
    failedCount: j.failed_count,
    failureCount: j.failed_count,
    createdAt: j.created_at,
    updatedAt: j.updated_at,
    ...(j.retried_at ? { retriedAt: j.retried_at } : {}),
    ...(j.completed_at ? { completedAt: j.completed_at } : {}),
    ...(j.status === 'processing' && j.estimated_completion_time
      ? { estimatedCompletionTime: j.estimated_completion_time }
      : {}),
    errors: j.errors.map((e) => ({ row: e.row, error: e.error })),
    ...(j.error ? { error: j.error } : {}),
  };
}

/** Where a job's status is polled (also the 202's Location). */
const pollUrlOf = (jobId: string) => `/api/bulk-mint/${encodeURIComponent(jobId)}`;

/** The body of a CSV upload's 202: the new job's counts (0 until it runs), and where to poll. */
export function presentCreatedCsvJob(j: Job) {
  return {
    jobId: j.id,
    status: j.status,
    totalCount: j.total_count,
    processedCount: j.processed_count,
    successCount: j.success_count,
    failedCount: j.failed_count,
    failureCount: j.failed_count,
    createdAt: j.created_at,
    pollUrl: pollUrlOf(j.id),
  };
}

const summaryOf = (j: Job) => ({
  totalItems: j.total_count,
  successCount: j.success_count,
  failureCount: j.failed_count,
  failedCount: j.failed_count,
});

/** Certificate voucher as the create response lists it: `{id, url, referenceNumber, metadata}`. */
const presentVoucher = (v: JobVoucher) => ({
  id: v.id,
  url: v.url,
  referenceNumber: v.reference_number,
  metadata: parseMetadata(v.metadata_json),
});

/** Certificate voucher in a status lookup's results, with its certificate and chain refs. */
export const presentVoucherResult = (v: JobVoucher) => ({
  ...presentVoucher(v),
  certificateId: v.certificate_id,
  tokenId: v.token_id ?? null,
  transactionHash: v.transaction_hash ?? null,
  blockNumber: v.block_number ?? null,
  lineItemGid: v.line_item_gid ?? null,
});

const FINISHED = new Set(['completed', 'failed']);

/**
 * The 201 body of the JSON form: synchronous (the job finished within the call) with its
 * vouchers, or asynchronous with a poll URL.
 */
export function presentCreatedOrderJob(j: Job) {
  if (FINISHED.has(j.status)) {
    return {
      success: true,
      jobId: j.id,
      status: j.status,
      summary: summaryOf(j),
      vouchers: j.vouchers.map(presentVoucher),
    };
  }
  return {
    success: true,
    jobId: j.id,
    status: 'pending',
    estimatedDuration: j.estimated_duration_s,
    pollUrl: pollUrlOf(j.id),
  };
}

/** Whole-number progress 0–100; a finished job with nothing in it is 100. */
function percentage(j: Job): number {
  if (j.total_count <= 0) return FINISHED.has(j.status) ? 100 : 0;
  return Math.min(100, Math.max(0, Math.floor((j.processed_count * 100) / j.total_count)));
}

/**
 * JSON-form status lookup: `{id, status, progress, summary, results:{vouchers, nextCursor},
 * createdAt, completedAt}`; `results.vouchers` is one page (jobs.ts), `nextCursor` the next
 * page's cursor or null.
 */
export function presentOrderJob(j: Job) {
  return {
    id: j.id,
    status: orderStatus(j.status),
    progress: { current: j.processed_count, total: j.total_count, percentage: percentage(j) },
    summary: {
      ...summaryOf(j),
      ...(j.processing_time_ms !== undefined ? { processingTime: j.processing_time_ms } : {}),
    },
    results: { vouchers: j.vouchers.map(presentVoucherResult), nextCursor: j.next_vouchers_after ?? null },
    createdAt: j.created_at,
    completedAt: j.completed_at ?? null,
    ...(j.retried_at ? { retriedAt: j.retried_at } : {}),
    ...(j.error ? { error: j.error } : {}),
  };
}

/** `attachment; filename="…"` with a name that cannot break out of the header. */
export function attachment(filename: string, fallback: string): string {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  return `attachment; filename="${safe && !/^\.+$/.test(safe) ? safe : fallback}"`;
}
