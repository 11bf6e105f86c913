// The fetch every call goes through: credentials in the header each surface expects, a
// request id per attempt kept visible, and retries. 429 is always retried (the gateway
// refused before doing anything); 5xx and network failures only for idempotent methods or a
// request that carries an Idempotency-Key. The wait is the answer's Retry-After (or body
// `retry_after`) when it gives one, else exponential backoff with jitter.
import { HallmarkError } from './errors.js';

export type Credentials = { apiKey: string } | { token: string } | undefined;

export interface RetryInfo {
  attempt: number;
  status: number;
  delayMs: number;
  method: string;
  url: string;
}

export interface TransportOptions {
  credentials: Credentials;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the 429 is thrown (default 60 s). */
  maxRetryDelayMs?: number;
  onRetry?: (info: RetryInfo) => void;
  fetch?: typeof globalThis.fetch;
  userAgent?: string;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRY_STATUSES = new Set([500, 502, 503, 504]);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Adds the credentials: Bearer on `/api/v1`, `x-api-key` for an API key elsewhere (spec › Authentication). */
export function authorize(headers: Headers, url: string, credentials: Credentials): void {
  if (!credentials) return;
  if ('token' in credentials) {
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${credentials.token}`);
    return;
  }
  const path = new URL(url).pathname;
  if (path.startsWith('/api/v1/') || headers.has('x-api-key')) {
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${credentials.apiKey}`);
  } else headers.set('x-api-key', credentials.apiKey);
}

function retryDelayMs(res: Response, attempt: number): number {
  const header = res.headers.get('retry-after');
  if (header !== null) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(header);
    if (Number.isFinite(at)) return Math.max(0, at - Date.now());
  }
  return backoffMs(attempt);
}

const backoffMs = (attempt: number) => Math.min(8000, 250 * 2 ** attempt) * (0.75 + Math.random() / 2);

/**
 * Sends what `make()` builds (called once per attempt, so a body can be sent again) and
 * answers the first 2xx/3xx response; anything else is thrown as a HallmarkError.
 */
export async function send(
  make: () => Request | Promise<Request>,
  opts: TransportOptions,
): Promise<Response> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const maxRetries = opts.maxRetries ?? 2;
  const maxDelay = opts.maxRetryDelayMs ?? 60_000;
  for (let attempt = 0; ; attempt++) {
    const req = await make();
    authorize(req.headers, req.url, opts.credentials);
    if (opts.userAgent && !req.headers.has('user-agent')) req.headers.set('user-agent', opts.userAgent);
    const safe = IDEMPOTENT.has(req.method) || req.headers.has('idempotency-key');
    let res: Response;
    try {
      res = await doFetch(req);
    } catch (err) {
      if ((err as Error)?.name === 'AbortError' || !safe || attempt >= maxRetries) {
        throw (err as Error)?.name === 'AbortError' ? err : HallmarkError.connection(err);
      }
      const delayMs = backoffMs(attempt);
      opts.onRetry?.({ attempt: attempt + 1, status: 0, delayMs, method: req.method, url: req.url });
      await sleep(delayMs);
      continue;
    }
    if (res.ok || (res.status >= 300 && res.status < 400)) return res;
    const retryable = res.status === 429 || (RETRY_STATUSES.has(res.status) && safe);
    if (retryable && attempt < maxRetries) {
      const delayMs = retryDelayMs(res, attempt);
      if (delayMs <= maxDelay) {
        await res.body?.cancel().catch(() => undefined);
        opts.onRetry?.({
          attempt: attempt + 1,
          status: res.status,
          delayMs,
          method: req.method,
          url: req.url,
        });
        await sleep(delayMs);
        continue;
      }
    }
    throw await HallmarkError.fromResponse(res);
  }
}
