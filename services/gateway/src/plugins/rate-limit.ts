// Rate limiting: Redis-backed when REDIS_URL is set (shared by every gateway replica; one
// script call per request), in memory otherwise (auth/window-counters.ts, counted as
// rate-limiter-flexible's memory limiter counts). Each request consumes one point from each
// window that applies; the configured window closest to running out is reported in
// X-RateLimit-* headers (never the one-second burst guard), and a refusal is a 429 with
// `retry_after` (and Retry-After) and `limit_window` naming the window that refused.
import { HallmarkError } from '@hallmark/kit';
import type { KeyAuth } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { GROUP_WINDOWS, keyWindows, type Window } from '../auth/limits.js';
import { clientBucket } from '../auth/throttle.js';
import type { RateGroup } from '../auth/types.js';
import { WindowCounters } from '../auth/window-counters.js';

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

  // Without Redis the per-request windows are counted synchronously (auth/window-counters.ts):
  // no promise, no timer per request. `limiterFor` stays rate-limiter-flexible's: its windows
  // (gifts, verification events) have names of their own, so the two stores never share one.
  const counters = redis ? undefined : new WindowCounters();
  if (counters) app.addHook('onClose', (_app, done) => (counters.close(), done()));

  /** The windows a request takes a point from, and whom they count; none for other routes. */
  function planOf(request: FastifyRequest): { windows: readonly Planned[]; subject: string } | undefined {
    const config = request.routeOptions.config;
    const group = config?.rateGroupFor ? config.rateGroupFor(request) : config?.rateGroup;
    const auth = request.auth;
    if (auth) return { windows: plannedFor(auth.key ?? SESSION, group), subject: auth.subject };
    if (group && PUBLIC_GROUPS.has(group))
      return { windows: plannedFor(PUBLIC, group), subject: `ip:${clientBucket(request.ip)}` };
    return undefined;
  }

  app.addHook('onRequest', (request, reply, done) => {
    const plan = planOf(request);
    if (!plan) return done();
    if (consumeWindows) {
      consumeAll(consumeWindows, plan.windows, plan.subject).then(
        (taken) => done(verdict(reply, taken, Date.now())),
        done,
      );
      return;
    }
    const now = Date.now();
    const taken = plan.windows.map(({ w, prefix }) => {
      const { consumed, msBeforeNext } = counters!.take(prefix, plan.subject, w.durationSec, now);
      return { w, remaining: Math.max(w.points - consumed, 0), msBeforeNext, ok: consumed <= w.points };
    });
    done(verdict(reply, taken, now));
  });
});

/** A window with its counters' key prefix, planned once per key (or group) and reused. */
interface Planned {
  w: Window;
  prefix: string;
}

/** One window's answer to a point: as rate-limiter-flexible's `RateLimiterRes` tells it. */
interface Taken {
  w: Window;
  remaining: number;
  msBeforeNext: number;
  ok: boolean;
}

/** Stand-ins for "no key" in the plan cache: a session (enterprise windows), a public route. */
const SESSION = {};
const PUBLIC = {};
const plans = new WeakMap<object, Map<string, Planned[]>>();

/**
 * The windows of a key (or a session: `SESSION`; or none: `PUBLIC`) plus its group's, cached
 * by the key's verified answer: a cached key costs no new windows per request, and a changed
 * key (a new answer from the keys service) gets its new limits.
 */
function plannedFor(key: KeyAuth | object, group: RateGroup | undefined): Planned[] {
  let byGroup = plans.get(key);
  if (!byGroup) plans.set(key, (byGroup = new Map()));
  let planned = byGroup.get(group ?? '');
  if (!planned) {
    const windows = [
      ...(key === PUBLIC ? [] : keyWindows(key === SESSION ? undefined : (key as KeyAuth))),
      ...(group ? [GROUP_WINDOWS[group]] : []),
    ];
    planned = windows.map((w) => ({ w, prefix: prefixOf(w) }));
    byGroup.set(group ?? '', planned);
  }
  return planned;
}

/**
 * The headers, and the refusal when a window is spent (else undefined: the request goes on).
 * The headers describe the limits a client configured and the spec documents (per minute,
 * per hour, per endpoint group): the one closest to running out. The one-second burst guard
 * is never what they report; when it refuses, its 429 says so.
 */
function verdict(reply: FastifyReply, taken: readonly Taken[], now: number): HallmarkError | undefined {
  let shown: Taken | undefined;
  let worst: Taken | undefined;
  for (const t of taken) {
    if (t.w.name !== 'burst' && (!shown || t.remaining < shown.remaining)) shown = t;
    if (!t.ok && (!worst || t.msBeforeNext > worst.msBeforeNext)) worst = t;
  }
  shown ??= taken.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  if (!worst) {
    setHeaders(reply, shown, now);
    return undefined;
  }
  setHeaders(reply, worst.w.name === 'burst' ? shown : worst, now);
  const retryAfter = Math.max(1, Math.ceil(worst.msBeforeNext / 1000));
  return new HallmarkError('rate_limit_exceeded', {
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

function setHeaders(reply: FastifyReply, t: Taken, now: number) {
  void reply.header('x-ratelimit-limit', String(t.w.points));
  void reply.header('x-ratelimit-remaining', String(t.remaining));
  void reply.header('x-ratelimit-reset', String(Math.ceil((now + t.msBeforeNext) / 1000)));
}

/** One point from each window for `subject`, in one Redis call; as `consume` would answer. */
async function consumeAll(
  consumeWindows: ConsumeWindows,
  windows: readonly Planned[],
  subject: string,
): Promise<Taken[]> {
  const keys = windows.map(({ prefix }) => `${prefix}:${subject}`);
  const raw = await consumeWindows(keys.length, ...keys, ...windows.map(({ w }) => String(w.durationSec)));
  return windows.map(({ w }, i) => {
    const consumed = Number(raw[2 * i]);
    return {
      w,
      remaining: Math.max(w.points - consumed, 0),
      msBeforeNext: Number(raw[2 * i + 1]),
      ok: consumed <= w.points,
    };
  });
}
