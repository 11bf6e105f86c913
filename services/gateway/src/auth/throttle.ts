// Throttling of failed authentication (docs/security.md › Failed authentication). Every
// refused credential (401: an unknown, mistyped, revoked or expired key, an invalid session
// token) counts against the client address and, for a key-shaped secret, against its
// display prefix (`pk_live_AbCd`), in the rate-limit store (Redis when configured, else
// memory). Past the threshold the address (or prefix) is blocked for a while: credentials
// it sends are answered 429 with Retry-After BEFORE any lookup, so a flood of guesses costs
// no database query. The store is read only when a credential fails or a key needs a lookup
// (a verification cache miss), never on the path of a valid, cached credential.
//
// A valid credential is never locked out by its neighbours (a NAT shares one address): a
// session token is checked locally (a signature, no lookup) and passes when valid; an API
// key passes when it is known good — verified successfully, or issued through a gateway,
// within KNOWN_GOOD_TTL_SEC (its SHA-256 is remembered in the same store). Only a key never
// seen before waits out the block.
import { displayPrefix, HallmarkError, sha256Hex } from '@hallmark/kit';
import type { Redis } from 'ioredis';
import { isIP } from 'node:net';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface ThrottleLimits {
  /** Failures from one client address within `windowSec` before it is blocked. */
  perAddress: number;
  /** Failures with one key display prefix within `windowSec` before it is blocked. */
  perKeyPrefix: number;
  windowSec: number;
  blockSec: number;
}

// Seven days: the memory store keeps each entry with a timer, and Node timers end at 24.8 days.
export const KNOWN_GOOD_TTL_SEC = 7 * 24 * 3600;
/** How often one gateway refreshes a key's known-good mark (saves a store write per request). */
const REFRESH_MS = 3600_000;

/** The address a client is counted under: IPv4 as is, IPv6 by its /64 (one host's range). */
export function clientBucket(ip: string): string {
  const v4 = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  if (isIP(v4) !== 6) return v4;
  const [head = '', tail = ''] = v4.split('::');
  const left = head ? head.split(':') : [];
  const right = v4.includes('::') && tail ? tail.split(':') : [];
  const groups = v4.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class AuthThrottle {
  private readonly byAddress: RateLimiterAbstract;
  private readonly byPrefix: RateLimiterAbstract;
  private readonly knownGood: RateLimiterAbstract;
  private readonly refreshed = new Map<string, number>();

  constructor(
    readonly limits: ThrottleLimits,
    redis?: Redis,
  ) {
    const make = (keyPrefix: string, points: number, duration: number, blockDuration = 0) => {
      const opts = { keyPrefix, points, duration, blockDuration };
      // On Redis with an in-memory insurance limiter: while Redis fails, this process counts.
      return redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts);
    };
    this.byAddress = make('hm_authfail_ip', limits.perAddress, limits.windowSec, limits.blockSec);
    this.byPrefix = make('hm_authfail_prefix', limits.perKeyPrefix, limits.windowSec, limits.blockSec);
    this.knownGood = make('hm_auth_good', 1, KNOWN_GOOD_TTL_SEC);
  }

  /** Seconds the credential must wait, or 0 when it may be checked. */
  async blockedFor(ip: string, secret?: string): Promise<number> {
    const prefix = secret ? displayPrefix(secret) : '';
    const [a, p] = await Promise.all([
      this.byAddress.get(clientBucket(ip)),
      prefix ? this.byPrefix.get(prefix) : null,
    ]);
    let ms = 0;
    if (a && a.consumedPoints > this.limits.perAddress) ms = Math.max(ms, a.msBeforeNext);
    if (p && p.consumedPoints > this.limits.perKeyPrefix) ms = Math.max(ms, p.msBeforeNext);
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
  }

  /** True when this key verified (or was issued) recently: it skips a block. */
  async isKnownGood(secret: string): Promise<boolean> {
    return (await this.knownGood.get(sha256Hex(secret))) !== null;
  }

  /** Marks a key known good; `hash` is its SHA-256 (sha256Hex), when the caller has it. */
  async rememberGood(secret: string, hash = sha256Hex(secret)): Promise<void> {
    if (this.due(hash)) await this.knownGood.set(hash, 1, KNOWN_GOOD_TTL_SEC);
  }

  /**
   * `rememberGood` for the request path, by the key's SHA-256: no promise while this
   * gateway's mark is fresh (nearly every request); a store failure goes to `onError`.
   */
  markGood(hash: string, onError: (err: unknown) => void): void {
    if (this.due(hash)) this.knownGood.set(hash, 1, KNOWN_GOOD_TTL_SEC).then(undefined, onError);
  }

  /** True (and noted) when this gateway last refreshed the mark REFRESH_MS ago or never. */
  private due(hash: string): boolean {
    const now = Date.now();
    const last = this.refreshed.get(hash);
    if (last !== undefined && now - last < REFRESH_MS) return false;
    if (this.refreshed.size > 100_000) this.refreshed.clear();
    this.refreshed.set(hash, now);
    return true;
  }

  /** Counts one refused credential. */
  async failed(ip: string, secret?: string): Promise<void> {
    const prefix = secret ? displayPrefix(secret) : '';
    const over = (err: unknown) => {
      if (err instanceof Error) throw err; // the store failed; the refusal itself still stands
    };
    await Promise.all([
      this.byAddress.consume(clientBucket(ip)).catch(over),
      prefix ? this.byPrefix.consume(prefix).catch(over) : undefined,
    ]);
  }

  refusal(retryAfterSec: number): HallmarkError {
    return new HallmarkError('rate_limit_exceeded', {
      message: `Too many failed authentication attempts from this client; retry after ${retryAfterSec} s.`,
      extras: { retry_after: retryAfterSec },
    });
  }
}
