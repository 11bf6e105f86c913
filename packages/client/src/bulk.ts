// Bulk-mint helpers beyond one call: a job's progress in one shape for both forms, watching
// a job to its end within the poll budget (spec › Limits: 100 status polls per 15 minutes,
// paced by the X-RateLimit-* headers), the order form with its Idempotency-Key, and result
// downloads as streams with their size.
import { randomBytes } from 'node:crypto';
import type { Data, Hallmark } from './client.js';
import { sleep } from './transport.js';

export type OrderBody = NonNullable<
  Extract<
    NonNullable<import('../gen/openapi.js').operations['createBulkMintJob']['requestBody']>['content'],
    { 'application/json': unknown }
  >['application/json']
>;

export interface JobProgress {
  jobId: string;
  form: 'csv' | 'order';
  status: string;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  /** True once the job is completed, failed or cancelled. */
  done: boolean;
  /** The API's job object, exactly as answered. */
  job: Record<string, unknown>;
  /** The whole answer of GET /api/bulk-mint/:jobId. */
  answer: Data<'get', '/api/bulk-mint/{jobId}'>;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

export function progressOf(answer: Data<'get', '/api/bulk-mint/{jobId}'>): JobProgress {
  if ('data' in answer) {
    const j = answer.data;
    return {
      jobId: j.jobId,
      form: 'csv',
      status: j.status,
      total: j.totalCount,
      processed: j.processedCount,
      succeeded: j.successCount,
      failed: j.failedCount,
      done: ENDED.has(j.status),
      job: j as never,
      answer,
    };
  }
  const j = answer.job;
  const failed = j.summary?.failureCount ?? 0;
  const succeeded = j.summary?.successCount ?? 0;
  return {
    jobId: j.id,
    form: 'order',
    status: j.status,
    total: j.progress.total,
    processed: Math.max(j.progress.current, succeeded + failed),
    succeeded,
    failed,
    done: ENDED.has(j.status),
    job: j as never,
    answer,
  };
}

export async function jobProgress(
  hm: Hallmark,
  jobId: string,
): Promise<{ progress: JobProgress; headers: Headers }> {
  const { data, response } = await hm.api.GET('/api/bulk-mint/{jobId}', { params: { path: { jobId } } });
  return { progress: progressOf(data!), headers: response.headers };
}

/**
 * How long to wait before the next poll: the shortest pause while more than half of the
 * window's budget is left, then paced so the rest lasts until the window resets.
 */
export function pollDelayMs(headers: Headers, minMs: number, nowMs = Date.now()): number {
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (![limit, remaining, reset].every(Number.isFinite) || !headers.has('x-ratelimit-reset')) return minMs;
  if (remaining > limit / 2) return minMs;
  const untilReset = Math.max(0, reset * 1000 - nowMs);
  return Math.max(minMs, Math.ceil(untilReset / Math.max(1, remaining - 1)));
}

/**
 * Yields the job's progress after every poll until it ends (the last value has `done`).
 * `intervalMs` is the shortest pause; the poll budget may make it longer.
 */
export async function* watchJob(
  hm: Hallmark,
  jobId: string,
  opts: { intervalMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<JobProgress> {
  for (;;) {
    opts.signal?.throwIfAborted();
    const { progress, headers } = await jobProgress(hm, jobId);
    yield progress;
    if (progress.done) return;
    await sleep(pollDelayMs(headers, opts.intervalMs ?? 1000));
  }
}

/** `{shop}#{orderId}#{lineItemGid}#{random_hash}`, the format the order form takes. */
export function orderIdempotencyKey(body: OrderBody): string {
  const ctx = body.externalContext;
  return `${ctx.shop}#${ctx.orderId}#${ctx.lineItems[0]?.lineItemGid ?? ''}#${randomBytes(8).toString('hex')}`;
}

/**
 * POST /api/bulk-mint, order form. The Idempotency-Key (given, or made once here) is sent on
 * every attempt, so a retried 5xx never makes a second job; a reused key answers 409 with the
 * existing job in `err.body.existingJobId`.
 */
export async function createOrderJob(hm: Hallmark, body: OrderBody, opts: { idempotencyKey?: string } = {}) {
  const key = opts.idempotencyKey ?? orderIdempotencyKey(body);
  return hm.post('/api/bulk-mint', {
    body: body as never,
    params: { header: { 'idempotency-key': key } },
    headers: { 'idempotency-key': key },
  });
}

/** A job's results file as it arrives: never held in memory whole. */
export interface ResultsDownload {
  /** The file's bytes as a web stream (`Readable.fromWeb(body)` pipes it to disk). */
  body: ReadableStream<Uint8Array>;
  /**
   * Its size in bytes when the server sends one, for a progress bar; `undefined` when the file
   * is streamed as it is made (a ZIP always is), so no size is known before its end.
   */
  totalBytes: number | undefined;
  /** The server's name for it (`Content-Disposition`), e.g. `job_….csv`. */
  filename: string | undefined;
}

/** GET /api/bulk-mint/:jobId/download/:type: the results file as a stream, with its name and (when known) size. */
export async function downloadResults(
  hm: Hallmark,
  jobId: string,
  type: 'csv' | 'zip',
): Promise<ResultsDownload> {
  const res = await hm.fetch(`/api/bulk-mint/${encodeURIComponent(jobId)}/download/${type}`);
  const length = Number(res.headers.get('content-length'));
  return {
    body: res.body!,
    totalBytes: Number.isFinite(length) && length > 0 ? length : undefined,
    filename: /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1],
  };
}
