// The gateway's cache of what a QR scan reads: the public certificate
// (`/api/certificate/public/:id`), the token metadata (`/api/certificate/metadata/:tokenId`),
// the verification page (`/verify/:id`) and its JSON (`/api/certificate/verify/:id`). An
// in-process LRU bounded by entries and bytes, filled through the certificates RPCs, each
// entry dropped by the certificate's events (cache/invalidation.ts) and in any case after a
// short TTL, so a lost event (NATS down) leaves an entry stale for at most the TTL, never
// for ever. Unknown ids are cached as `not found` for a shorter TTL, so a scan of random ids
// costs the service one call per id per that TTL.
//
// What is cached is exactly what the route answered before the cache: the public read shows
// any certificate by id (either mode) without its enterprise, and so does its entry; the
// entry is keyed by the route's own parameter and holds no tenant data the answer did not.
//
// Races: concurrent misses of one key share one fill (no stampede). An invalidation bumps
// the epoch and forgets the fills in flight, so a fill that read before the change is never
// stored after it.
import { HallmarkError } from '@hallmark/kit';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** `verification`: the open verification JSON (`/api/certificate/verify/:id`). */
export type CacheKind = 'public' | 'meta' | 'verify' | 'verification';

/** A cached answer: the body's bytes and its strong ETag, or `not found`. */
export type Cached = (
  | { found: true; body: Buffer; etag: string; certificateId: string }
  | { found: false; error: HallmarkError; etag?: undefined }
) & {
  /** True when answered from the cache (not by this request's own fill). */
  hit?: boolean;
};

/** What a fill reads: the answer's body and the certificate it shows. */
export interface Filled {
  body: Buffer | string;
  certificateId: string;
}

export interface PublicCacheOptions {
  /** Most entries held. */
  maxEntries: number;
  /** Most bytes of bodies held. */
  maxBytes: number;
  /** Lifetime of a found entry (the backstop when an event is lost). */
  ttlMs: number;
  /** Lifetime of a `not found`. */
  notFoundTtlMs: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  invalidations: number;
  size: number;
  bytes: number;
}

/** The strong ETag of a body: its SHA-256, base64url, quoted. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** True when an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for it). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}

function cachedOf(filled: Filled): Cached {
  const body = typeof filled.body === 'string' ? Buffer.from(filled.body) : filled.body;
  return { found: true, body, etag: etagOf(body), certificateId: filled.certificateId, hit: false };
}

async function settle(fill: Promise<Filled>): Promise<Cached> {
  try {
    return cachedOf(await fill);
  } catch (err) {
    if (err instanceof HallmarkError && err.code === 'resource_not_found')
      return { found: false, error: err };
    throw err;
  }
}

/** A fresh copy of a cached `not found` (the error handler renders it for its own request). */
export function notFoundError(c: { error: HallmarkError }): HallmarkError {
  return new HallmarkError(c.error.code, {
    message: c.error.message,
    param: c.error.param,
    extras: c.error.extras,
  });
}

export class PublicCache {
  private readonly lru: LRUCache<string, Cached>;
  private readonly inFlight = new Map<string, Promise<Cached>>();
  /** Token id of the certificate each cached metadata entry belongs to (to drop it by id). */
  private readonly tokenOf = new Map<string, string>();
  private epoch = 0;
  private readonly counts = { hits: 0, misses: 0, invalidations: 0 };

  constructor(private readonly opts: PublicCacheOptions) {
    this.lru = new LRUCache<string, Cached>({
      max: Math.max(1, opts.maxEntries),
      maxSize: Math.max(1, opts.maxBytes),
      sizeCalculation: (v, k) => k.length + (v.found ? v.body.length + 128 : 64),
      ttl: Math.max(1, opts.ttlMs),
      ttlAutopurge: false,
      allowStale: false,
      updateAgeOnGet: false,
      dispose: (v, k) => {
        if (v.found && k.startsWith('meta:') && this.tokenOf.get(v.certificateId) === k.slice(5)) {
          this.tokenOf.delete(v.certificateId);
        }
      },
    });
  }

  get enabled(): boolean {
    return this.opts.ttlMs > 0 && this.opts.maxEntries > 0;
  }

  /**
   * The cached answer of `kind`/`id`, or `fill()`'s (stored unless an invalidation came
   * meanwhile). A `resource_not_found` thrown by `fill` is cached as `not found` (and
   * answered as such); anything else it throws is thrown and not cached.
   */
  async get(kind: CacheKind, id: string, fill: () => Promise<Filled>): Promise<Cached> {
    const key = `${kind}:${id}`;
    if (!this.enabled) return settle(fill());
    const held = this.lru.get(key);
    if (held) {
      this.counts.hits++;
      return held;
    }
    this.counts.misses++;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const epoch = this.epoch;
    const p = settle(fill())
      .then((value) => {
        if (this.epoch === epoch) this.store(key, kind, value);
        return value;
      })
      .finally(() => {
        if (this.inFlight.get(key) === p) this.inFlight.delete(key);
      });
    this.inFlight.set(key, p);
    return p;
  }

  /** Stores a fresh answer (a page rendered outside `get`, e.g. one that recorded an event). */
  put(kind: CacheKind, id: string, filled: Filled): Cached {
    const value = cachedOf(filled);
    if (this.enabled) this.store(`${kind}:${id}`, kind, value);
    return value;
  }

  /** Drops every entry of a certificate (and of its token, when known). */
  invalidate(certificateId: string, tokenId?: number | string | null): void {
    this.epoch++;
    this.counts.invalidations++;
    const keys = [`public:${certificateId}`, `verify:${certificateId}`, `verification:${certificateId}`];
    const token = this.tokenOf.get(certificateId);
    if (token) keys.push(`meta:${token}`);
    if (tokenId !== undefined && tokenId !== null) keys.push(`meta:${tokenId}`);
    for (const k of keys) {
      this.lru.delete(k);
      this.inFlight.delete(k);
    }
  }

  /** Drops everything (an undecodable event, or events possibly missed). */
  clear(): void {
    this.epoch++;
    this.counts.invalidations++;
    this.lru.clear();
    this.inFlight.clear();
    this.tokenOf.clear();
  }

  stats(): CacheStats {
    return { ...this.counts, size: this.lru.size, bytes: this.lru.calculatedSize };
  }

  private store(key: string, kind: CacheKind, value: Cached): void {
    const held = { ...value, hit: true };
    if (!held.found) {
      if (this.opts.notFoundTtlMs <= 0) return;
      this.lru.set(key, held, { ttl: Math.max(1, this.opts.notFoundTtlMs) });
      return;
    }
    if (kind === 'meta') this.tokenOf.set(held.certificateId, key.slice(5));
    this.lru.set(key, held);
  }
}
