// Fetching a merchant's image URL once, at issue (and by the backfill worker). The URL is the
// customer's choice, so every connection goes through the kit's outbound guard (no private,
// loopback or metadata addresses unless HALLMARK_OUTBOUND_ALLOW_HOSTS exempts them; TLS always
// verified). https only, at most MAX_REDIRECTS redirects (each hop guarded), one time budget
// for the whole exchange, the body read through a byte cap. Failures are ImageFetchErrors
// whose message a customer can read as is; `retryable` says whether later may help.
import { createGuardedAgent, OutboundGuard, OutboundRefusedError } from '@hallmark/kit';
import { request, type Dispatcher } from 'undici';

export interface FetchImageOptions {
  timeoutMs: number;
  maxBytes: number;
  /** A long-lived guarded agent (connections reused). */
  dispatcher: Dispatcher;
}

export const MAX_REDIRECTS = 3;
const USER_AGENT = 'Hallmark/1.0 (+certificate image archive)';

export class ImageFetchError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
    /** The HTTP status of a final non-2xx answer (404, 410: the image is gone). */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ImageFetchError';
  }
}

/** The agent every image fetch of the process shares. */
export const imageAgent = (allowHosts: string) =>
  createGuardedAgent(new OutboundGuard(allowHosts), { connections: 16 });

const size = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : `${Math.round(n / 1024)} KB`;

export async function fetchImageBytes(url: string, opts: FetchImageOptions): Promise<Buffer> {
  try {
    return await fetchOnce(url, opts);
  } catch (err) {
    // A pooled keep-alive connection the host had just closed: one fresh try (a GET is safe).
    if (err instanceof ImageFetchError && /ECONNRESET|UND_ERR_SOCKET/.test(err.message))
      return fetchOnce(url, opts);
    throw err;
  }
}

async function fetchOnce(url: string, opts: FetchImageOptions): Promise<Buffer> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    let target = checkUrl(url);
    for (let hop = 0; ; hop++) {
      const res = await request(target, {
        dispatcher: opts.dispatcher,
        signal,
        headers: { accept: 'image/png, image/jpeg, image/webp, image/gif', 'user-agent': USER_AGENT },
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      const code = res.statusCode;
      if (code >= 300 && code < 400 && res.headers.location) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (hop >= MAX_REDIRECTS)
          throw new ImageFetchError(`image fetch failed: more than ${MAX_REDIRECTS} redirects`);
        target = checkUrl(new URL(String(res.headers.location), target).toString(), 'redirected to ');
        continue;
      }
      if (code < 200 || code >= 300) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw new ImageFetchError(
          `image fetch failed: HTTP ${code}`,
          code >= 500 || code === 429 || code === 408,
          code,
        );
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.body.on('error', () => undefined).destroy();
        throw new ImageFetchError(`image larger than ${size(opts.maxBytes)}`);
      }
      return await readCapped(res.body, opts.maxBytes);
    }
  } catch (err) {
    throw describe(err, opts.timeoutMs);
  }
}

function checkUrl(raw: string, prefix = ''): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ImageFetchError(`image URL is ${prefix}not a valid URL`);
  }
  if (url.protocol !== 'https:') throw new ImageFetchError(`image URL is ${prefix}not an HTTPS URL`);
  if (url.username || url.password) throw new ImageFetchError('image URL must not contain credentials');
  return url;
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw new ImageFetchError(`image larger than ${size(maxBytes)}`);
      chunks.push(chunk);
    }
  } finally {
    body.on('error', () => undefined).destroy();
  }
  return Buffer.concat(chunks);
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ALTNAME/;

/** Any failure as an ImageFetchError a customer can read (no stack, no upstream body). */
function describe(err: unknown, timeoutMs: number): ImageFetchError {
  if (err instanceof ImageFetchError) return err;
  const e = err as (NodeJS.ErrnoException & { cause?: unknown }) | undefined;
  const refused =
    err instanceof OutboundRefusedError ? err : e?.cause instanceof OutboundRefusedError ? e.cause : null;
  if (refused) return new ImageFetchError(`image fetch failed: address not allowed (${refused.reason})`);
  const code = e?.code ?? (e?.cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || /TIMEOUT/.test(code))
    return new ImageFetchError(`image fetch failed: timed out after ${timeoutMs} ms`, true);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ImageFetchError('image fetch failed: the host name does not resolve', code === 'EAI_AGAIN');
  if (TLS_CODES.test(code))
    return new ImageFetchError(`image fetch failed: the TLS certificate is not trusted (${code})`);
  if (code === 'ECONNREFUSED') return new ImageFetchError('image fetch failed: connection refused', true);
  return new ImageFetchError(`image fetch failed: network error${code ? ` (${code})` : ''}`, true);
}
