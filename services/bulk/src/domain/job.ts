// Pure rules of a bulk job: its record, status moves, estimates and the enterprise webhook
// body (spec › Events › bulk.job.completed). No I/O.
import type { ExternalContext } from './order.js';

export type JobForm = 'csv' | 'order';
export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export const JOB_STATUSES: readonly JobStatus[] = [
  'queued',
  'processing',
  'completed',
  'failed',
  'cancelled',
];

export interface Scope {
  enterpriseId: string;
  livemode: boolean;
  actorId: string;
  actorType: string;
}

export interface JobRecord {
  id: string;
  enterpriseId: string;
  livemode: boolean;
  actorId: string;
  actorType: string;
  form: JobForm;
  status: JobStatus;
  idempotencyKey: string | null;
  externalContext: ExternalContext | null;
  createBatch: boolean;
  csvFilename: string | null;
  totalCount: number;
  processedCount: number;
  successCount: number;
  failedCount: number;
  pass: number;
  submittedPass: number;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** When the last retry was accepted (null: never retried). */
  retriedAt: Date | null;
}

/** A succeeded item's voucher and chain references. */
export interface ItemVoucher {
  row: number;
  name: string;
  voucherId: string;
  url: string;
  referenceNumber: string;
  /** The voucher's metadata object as JSON text. */
  metadataJson: string;
  certificateId: string;
  tokenId: number | null;
  transactionHash: string | null;
  blockNumber: number | null;
  lineItemGid: string | null;
  expiresAt: Date | null;
}

export const isFinished = (s: JobStatus) => s === 'completed' || s === 'failed' || s === 'cancelled';

/**
 * The status a finished run ends in: `failed` when nothing succeeded (every item failed or
 * was invalid), else `completed` — with its failed items listed and retryable.
 */
export function finalStatus(job: Pick<JobRecord, 'successCount' | 'totalCount'>): 'completed' | 'failed' {
  return job.successCount === 0 && job.totalCount > 0 ? 'failed' : 'completed';
}

/** Why a job failed, when it did. */
export function failureMessage(job: Pick<JobRecord, 'failedCount' | 'totalCount'>): string {
  return `All ${job.totalCount} item(s) failed; see errors for each row.`;
}

/** Measured throughput on a 2-core machine with anvil (items/s), used for estimates only. */
const ITEMS_PER_SECOND = 400;
const FIXED_SECONDS = 3;

export function estimatedSeconds(remaining: number): number {
  return Math.max(1, Math.ceil(FIXED_SECONDS + remaining / ITEMS_PER_SECOND));
}

/** While processing: now + the remaining items at the measured rate. */
export function estimatedCompletion(job: JobRecord, now: Date): Date | null {
  if (job.status !== 'processing') return null;
  const remaining = Math.max(0, job.totalCount - job.processedCount);
  return new Date(now.getTime() + estimatedSeconds(remaining) * 1000);
}

/** Webhook bodies carry at most this many vouchers (NATS messages stay well under 1 MB). */
export const EVENT_VOUCHER_LIMIT = 250;

/** The spec's bulk.job.completed / bulk.job.failed body (without `event` and `timestamp`). */
export function jobEventBody(job: JobRecord, vouchers: ItemVoucher[], processingTimeMs: number) {
  const shown = vouchers.slice(0, EVENT_VOUCHER_LIMIT);
  const voucherMap: Record<string, { voucherIds: string[]; urls: string[]; referenceNumbers: string[] }> = {};
  const voucherAll: { lineItemGid: string; voucherId: string; url: string; referenceNumber: string }[] = [];
  for (const v of shown) {
    if (!v.lineItemGid) continue;
    const entry = (voucherMap[v.lineItemGid] ??= { voucherIds: [], urls: [], referenceNumbers: [] });
    entry.voucherIds.push(v.voucherId);
    entry.urls.push(v.url);
    entry.referenceNumbers.push(v.referenceNumber);
    voucherAll.push({
      lineItemGid: v.lineItemGid,
      voucherId: v.voucherId,
      url: v.url,
      referenceNumber: v.referenceNumber,
    });
  }
  const first = vouchers.find((v) => v.transactionHash);
  const ctx = job.externalContext;
  return {
    jobId: job.id,
    status: job.status,
    summary: {
      totalItems: job.totalCount,
      successCount: job.successCount,
      failureCount: job.failedCount,
      processingTime: processingTimeMs,
    },
    results: {
      vouchers: shown.map((v) => ({
        id: v.voucherId,
        url: v.url,
        referenceNumber: v.referenceNumber,
        metadata: JSON.parse(v.metadataJson) as Record<string, unknown>,
        certificateId: v.certificateId,
        tokenId: v.tokenId,
        transactionHash: v.transactionHash,
        blockNumber: v.blockNumber,
      })),
      transactionHash: first?.transactionHash ?? null,
      blockNumber: first?.blockNumber ?? null,
      ...(job.successCount > shown.length
        ? { truncated: true, totalVouchers: job.successCount, resultsUrl: `/api/bulk-mint/${job.id}` }
        : {}),
    },
    shop: ctx?.shop ?? null,
    orderId: ctx?.orderId ?? null,
    orderNumber: ctx?.orderNumber ?? null,
    ...(job.form === 'order' ? { voucher_map: voucherMap, voucher_all: voucherAll } : {}),
  };
}

/**
 * The metadata a voucher carries: an order item's metadata as given, or a CSV row's
 * certificate fields. (`JobsStore.vouchers` builds the same object in SQL, as JSON text.)
 */
export function voucherMetadataOf(input: Record<string, unknown>): Record<string, unknown> {
  if (input.metadata && typeof input.metadata === 'object') return input.metadata as Record<string, unknown>;
  const { name, description, category, imageUrl, attributes } = input;
  return { name, description, category, imageUrl, attributes };
}
