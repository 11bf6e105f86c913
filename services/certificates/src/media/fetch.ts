// Fetching a merchant's image URL once, at issue (and by the backfill worker). The URL is the
// customer's choice, so every connection goes through the kit's outbound guard (no private,
// loopback or metadata addresses unless HALLMARK_OUTBOUND_ALLOW_HOSTS exempts them; TLS always
// verified). https only, at most MAX_REDIRECTS redirects (each hop guarded), one time budget
// for the whole exchange, the body read through a byte cap. Failures are ImageFetchErrors;
// `retryable` says whether later may help. Their message names the URL as the caller's API
// does (`image_url` unless told: an issuer profile's `logoUrl`), so callers pass it on as is.
//
// What the customer is told: a URL refused before anything is dialled (not a URL, not https,
// credentials in it, its host resolving to a non-public address) gets its own message — that
// is about the URL as written and its DNS, and says nothing about any port. Every failure once
// a connection is attempted — refused, reset, TLS (untrusted certificate, version, handshake),
// timeout, DNS failure, an HTTP status, too many redirects or a refused redirect, too large —
// is the one message COULD_NOT_FETCH (and the caller gives the same for bytes that are not an
// image). Telling those apart let a customer map which ports of an allowed host are closed,
// filtered, or open to something other than an image server. The precise cause is `detail`,
// for the logs only.
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

/** The name of the URL in a refusal unless the caller gives its own. */
export const DEFAULT_URL_NAME = 'image_url';

/** The one answer to any failure once a connection is attempted (see the top of this file). */
export const couldNotFetchMessage = (name: string) =>
  `could not fetch ${name}: the URL did not answer with a PNG, JPEG, WebP or GIF image within the size and time limits`;
export const COULD_NOT_FETCH = couldNotFetchMessage(DEFAULT_URL_NAME);

export class ImageFetchError extends Error {
  /** The precise cause, for logs only (never sent to the customer). */
  readonly detail: string;

  constructor(
    /** What the customer reads, the URL named as the caller's API names it. */
    readonly says: (name: string) => string,
    readonly retryable = false,
    detail?: string,
  ) {
    super(says(DEFAULT_URL_NAME));
    this.name = 'ImageFetchError';
    this.detail = detail ?? this.message;
  }
}

/** A failure once a connection was attempted: the one public message, the cause for logs. */
const couldNotFetch = (detail: string, retryable = false) =>
  new ImageFetchError(couldNotFetchMessage, retryable, detail);

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
    if (err instanceof ImageFetchError && /ECONNRESET|UND_ERR_SOCKET/.test(err.detail))
      return fetchOnce(url, opts);
    throw err;
  }
}

async function fetchOnce(url: string, opts: FetchImageOptions): Promise<Buffer> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let target = checkUrl(url);
  let hop = 0;
  try {
    for (; ; hop++) {
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
        if (hop >= MAX_REDIRECTS) throw couldNotFetch(`more than ${MAX_REDIRECTS} redirects`);
        target = redirectTarget(String(res.headers.location), target);
        continue;
      }
      if (code < 200 || code >= 300) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw couldNotFetch(`HTTP ${code}`, code >= 500 || code === 429 || code === 408);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.body.on('error', () => undefined).destroy();
        throw couldNotFetch(`declared ${declared} bytes, larger than ${size(opts.maxBytes)}`);
      }
      return await readCapped(res.body, opts.maxBytes);
    }
  } catch (err) {
    throw describe(err, opts.timeoutMs, hop);
  }
}

/** A redirect's target; one that is not a plain https URL is a failure like any other. */
function redirectTarget(location: string, from: URL): URL {
  try {
    return checkUrl(new URL(location, from).toString());
  } catch (err) {
    throw couldNotFetch(`redirected to a refused URL (${(err as Error).message})`);
  }
}

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ImageFetchError((name) => `${name} is not a valid URL`);
  }
  if (url.protocol !== 'https:') throw new ImageFetchError((name) => `${name} is not an HTTPS URL`);
  if (url.username || url.password)
    throw new ImageFetchError((name) => `${name} must not contain credentials`);
  return url;
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw couldNotFetch(`body larger than ${size(maxBytes)}`);
      chunks.push(chunk);
    }
  } finally {
    body.on('error', () => undefined).destroy();
  }
  return Buffer.concat(chunks);
}

/**
 * Any failure as an ImageFetchError. Only the guard's refusal of the URL's own host (hop 0:
 * decided from DNS before anything is dialled) keeps its reason; everything else is
 * COULD_NOT_FETCH with the cause in `detail`.
 */
function describe(err: unknown, timeoutMs: number, hop: number): ImageFetchError {
  if (err instanceof ImageFetchError) return err;
  const e = err as (NodeJS.ErrnoException & { cause?: unknown }) | undefined;
  const refused =
    err instanceof OutboundRefusedError ? err : e?.cause instanceof OutboundRefusedError ? e.cause : null;
  if (refused && hop === 0)
    return new ImageFetchError((name) => `could not fetch ${name}: address not allowed (${refused.reason})`);
  if (refused) return couldNotFetch(`redirect hop ${hop}: address not allowed (${refused.reason})`);
  const code = e?.code ?? (e?.cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || /TIMEOUT/.test(code))
    return couldNotFetch(`timed out after ${timeoutMs} ms${code ? ` (${code})` : ''}`, true);
  return couldNotFetch(
    `${code || e?.name || 'error'}: ${e?.message ?? String(err)}`,
    code !== 'ENOTFOUND' && !/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code),
  );
}
