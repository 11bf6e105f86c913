// Rate limiting with rate-limiter-flexible: Redis-backed when REDIS_URL is set (shared by
// every gateway replica), in memory otherwise. Each request consumes one point from each
// window that applies; the configured window closest to running out is reported in
// X-RateLimit-* headers (never the one-second burst guard), and a refusal is a 429 with
// `retry_after` (and Retry-After) and `limit_window` naming the window that refused.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { GROUP_WINDOWS, keyWindows, type Window } from '../auth/limits.js';
import { clientBucket } from '../auth/throttle.js';

export interface RateLimitOptions {
  redis?: Redis;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** A limiter on the rate-limit store (Redis or memory) for one window; shared per window. */
    limiterFor(w: Window): RateLimiterAbstract;
  }
}

/** How a refused window is named in the 429's `limit_window`. */
const windowName = (w: Window): string => (w.name === 'min' ? 'minute' : w.name);

/** Groups of unauthenticated routes: counted per client address. */
const PUBLIC_GROUPS: ReadonlySet<string> = new Set(['public', 'verify_page']);

/** The key prefix of a window's counters (rate-limiter-flexible's `keyPrefix`). */
const prefixOf = (w: Window) => `hm_rl:${w.name}:${w.points}:${w.durationSec}`;

/**
 * Every window of a request consumed in one Redis call: rate-limiter-flexible's own script
 * (the counter, created with its expiry, then incremented; its time left), once per key, on
 * the same keys. Answers consumed and ms left, per window. Four windows were four round
 * trips and four scripts per request.
 */
const CONSUME_WINDOWS = `local out = {}
for i, key in ipairs(KEYS) do
  redis.call('set', key, 0, 'EX', ARGV[i], 'NX')
  local consumed = redis.call('incrby', key, 1)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, ARGV[i])
    ttl = 1000 * ARGV[i]
  end
  out[#out + 1] = consumed
  out[#out + 1] = ttl
end
return out`;

type ConsumeWindows = (numKeys: number, ...keysThenSeconds: string[]) => Promise<number[]>;

export default fp(async function rateLimit(app: FastifyInstance, opts: RateLimitOptions) {
  const { redis } = opts;
  redis?.defineCommand('hmConsumeWindows', { lua: CONSUME_WINDOWS });
  const consumeWindows = redis
    ? ((redis as unknown as { hmConsumeWindows: ConsumeWindows }).hmConsumeWindows.bind(
        redis,
      ) as ConsumeWindows)
    : undefined;
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (w: Window): RateLimiterAbstract => {
    const id = `${w.name}:${w.points}:${w.durationSec}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const common = { keyPrefix: prefixOf(w), points: w.points, duration: w.durationSec };
      limiter = opts.redis
        ? new RateLimiterRedis({ ...common, storeClient: opts.redis })
        : new RateLimiterMemory(common);
      limiters.set(id, limiter);
    }
    return limiter;
  };
  app.decorate('limiterFor', limiterFor);

  function setHeaders(reply: FastifyReply, limit: number, res: RateLimiterRes) {
    void reply.header('x-ratelimit-limit', String(limit));
    void reply.header('x-ratelimit-remaining', String(Math.max(0, res.remainingPoints)));
    void reply.header('x-ratelimit-reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
  }

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    const group = config?.rateGroupFor ? config.rateGroupFor(request) : config?.rateGroup;
    const auth = request.auth;
    let windows: Window[];
    let subject: string;
    if (auth) {
      windows = [...keyWindows(auth.key), ...(group ? [GROUP_WINDOWS[group]] : [])];
      subject = auth.subject;
    } else if (group && PUBLIC_GROUPS.has(group)) {
      windows = [GROUP_WINDOWS[group]];
      subject = `ip:${clientBucket(request.ip)}`;
    } else {
      return;
    }
    const results = consumeWindows
      ? await consumeAll(consumeWindows, windows, subject)
      : await Promise.all(
          windows.map(async (w) => {
            try {
              return { w, res: await limiterFor(w).consume(subject), ok: true };
            } catch (err) {
              if (err instanceof RateLimiterRes) return { w, res: err, ok: false };
              throw err;
            }
          }),
        );
    // The headers describe the limits a client configured and the spec documents (per
    // minute, per hour, per endpoint group): the one closest to running out. The one-second
    // burst guard is never what they report; when it refuses, its 429 says so.
    const reported = results.filter((r) => r.w.name !== 'burst');
    const shown = (reported.length > 0 ? reported : results).reduce((a, b) =>
      b.res.remainingPoints < a.res.remainingPoints ? b : a,
    );
    const refused = results.filter((r) => !r.ok);
    if (refused.length > 0) {
      const worst = refused.reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
      const refusedWindow = worst.w.name === 'burst' ? shown : worst;
      setHeaders(reply, refusedWindow.w.points, refusedWindow.res);
      const retryAfter = Math.max(1, Math.ceil(worst.res.msBeforeNext / 1000));
      throw new HallmarkError('rate_limit_exceeded', {
        ...(worst.w.name === 'burst'
          ? {
              message:
                `Burst limit exceeded: at most ${worst.w.points} requests per second for this key. ` +
                `Retry after ${retryAfter} second(s).`,
            }
          : {}),
        extras: {
          retry_after: retryAfter,
          limit_window: worst.w.name === 'burst' ? 'burst' : windowName(worst.w),
        },
      });
    }
    setHeaders(reply, shown.w.points, shown.res);
  });
});

/** One point from each window for `subject`, in one Redis call; as `consume` would answer. */
async function consumeAll(consumeWindows: ConsumeWindows, windows: Window[], subject: string) {
  const keys = windows.map((w) => `${prefixOf(w)}:${subject}`);
  const raw = await consumeWindows(keys.length, ...keys, ...windows.map((w) => String(w.durationSec)));
  return windows.map((w, i) => {
    const consumed = Number(raw[2 * i]);
    const msBeforeNext = Number(raw[2 * i + 1]);
    const res = new RateLimiterRes(Math.max(w.points - consumed, 0), msBeforeNext, consumed, consumed === 1);
    return { w, res, ok: consumed <= w.points };
  });
}
