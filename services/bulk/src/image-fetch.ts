// Fetching a customer's image URL (CSV `imageUrl`, order `metadata[].imageUrl`) to check it
// is a real image and fingerprint it. The URL is the customer's choice, so every connection
// goes through the kit's outbound guard (no private, loopback or metadata addresses unless
// HALLMARK_OUTBOUND_ALLOW_HOSTS exempts them; TLS always verified). https only, at most
// MAX_REDIRECTS redirects (each to https, each hop guarded), one time budget for the whole
// exchange, the body streamed through a byte cap and never held: only its hash and first
// bytes (for sniffing the type with file-type) are kept. Failures are ImageFetchErrors whose
// message can be shown to the customer as is; `retryable` tells a workflow whether trying
// again later may help (timeouts, network trouble, 5xx, 429) or not (404, not an image, …).
import { createGuardedAgent, OutboundGuard, OutboundRefusedError } from '@hallmark/kit';
import { fileTypeFromBuffer } from 'file-type';
import { createHash } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { IMAGE_CONTENT_TYPES } from './domain/zip.js';

export interface FetchedImage {
  /** The URL asked for (before redirects). */
  url: string;
  sha256: string;
  contentType: string;
  bytes: number;
}

export interface FetchImageOptions {
  timeoutMs: number;
  maxBytes: number;
  /** HALLMARK_OUTBOUND_ALLOW_HOSTS; used when no dispatcher is given. */
  allowHosts?: string;
  /** Extra trusted CA (tests); used when no dispatcher is given. */
  ca?: string;
  /**
   * A long-lived createGuardedAgent(...) to reuse connections across many fetches. Without
   * one, a guarded agent is made for this call and closed after it.
   */
  dispatcher?: Dispatcher;
}

export const MAX_REDIRECTS = 3;
const SNIFF_BYTES = 4100;
const USER_AGENT = 'Hallmark-Bulk/1.0 (+image check)';

export class ImageFetchError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ImageFetchError';
  }
}

const size = (n: number) =>
  n >= 1024 * 1024
    ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB`
    : n >= 1024
      ? `${Math.round(n / 1024)} KB`
      : `${n} bytes`;

export async function fetchImage(url: string, opts: FetchImageOptions): Promise<FetchedImage> {
  const own = opts.dispatcher
    ? undefined
    : createGuardedAgent(new OutboundGuard(opts.allowHosts ?? ''), {
        ...(opts.ca ? { tls: { ca: opts.ca } } : {}),
        connections: 1,
      });
  const dispatcher = opts.dispatcher ?? own!;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    let target = checkUrl(url);
    for (let hop = 0; ; hop++) {
      const res = await request(target, {
        dispatcher,
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
        );
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        discard(res.body);
        throw new ImageFetchError(`image larger than ${size(opts.maxBytes)}`);
      }
      return { url, ...(await readBody(res.body, opts.maxBytes)) };
    }
  } catch (err) {
    throw describe(err, opts.timeoutMs);
  } finally {
    await own?.close().catch(() => undefined);
  }
}

/** Drops a body without reading it; undici reports the abort as an error nobody needs. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined).destroy();
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

async function readBody(body: Dispatcher.ResponseData['body'], maxBytes: number) {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let bytes = 0;
  let contentType: string | undefined;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw new ImageFetchError(`image larger than ${size(maxBytes)}`);
      hash.update(chunk);
      if (contentType === undefined) {
        head.push(chunk);
        if (bytes >= SNIFF_BYTES) contentType = await sniff(Buffer.concat(head));
      }
    }
    contentType ??= await sniff(Buffer.concat(head));
  } finally {
    discard(body);
  }
  return { sha256: hash.digest('hex'), contentType, bytes };
}

async function sniff(head: Buffer): Promise<string> {
  const type = await fileTypeFromBuffer(head);
  const found = IMAGE_CONTENT_TYPES.find((t) => t === type?.mime);
  if (!found)
    throw new ImageFetchError(
      `not an image: the URL returned ${type ? type.mime : 'something other than a PNG, JPEG, WebP or GIF'}`,
    );
  return found;
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
