// How a cached public answer goes out: a strong ETag, `304 Not Modified` when the client (or
// a CDN revalidating) already holds it, and a Cache-Control a CDN may act on: a short
// max-age, then stale-while-revalidate so a burst of scans is absorbed at the edge while one
// request refreshes the copy. The cached bytes are sent as they are (no re-serialising).
// `X-Cache: hit|miss` says whether this gateway answered from its cache (benchmarks count it).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { matchesIfNoneMatch } from './public-cache.js';

/** The Cache-Control of every cached public answer. */
export function publicCacheControl(config: Config): string {
  return (
    `public, max-age=${config.HALLMARK_PUBLIC_CACHE_MAX_AGE_SEC}, ` +
    `stale-while-revalidate=${config.HALLMARK_PUBLIC_CACHE_SWR_SEC}`
  );
}

/**
 * Sends `body` (already serialised) with its ETag and Cache-Control, or `304` with no body
 * when If-None-Match names the ETag.
 */
export function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: { body: Buffer; etag: string; hit?: boolean },
  opts: { contentType: string; cacheControl: string; status?: number },
) {
  void reply
    .header('etag', entry.etag)
    .header('cache-control', opts.cacheControl)
    .header('x-cache', entry.hit ? 'hit' : 'miss');
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
    return reply.status(304).send();
  }
  return reply
    .status(opts.status ?? 200)
    .type(opts.contentType)
    .send(entry.body);
}
