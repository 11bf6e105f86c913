// Rate limits: Redis-backed when REDIS_URL is set (shared by every gateway replica; one
// script call takes a request's points and leases this gateway a block of the next ones,
// auth/redis-leases.ts, so most requests make no call), in memory otherwise (auth/window-counters.ts, counted as
// rate-limiter-flexible's memory limiter counts). A request is admitted only if every window
// that applies has room, and only an admitted request is counted, in every window; a refused
// one is counted in none (it used to be charged to the windows that had room, so a burst
// refusal spent the key's minute). Admitted, the X-RateLimit-* headers show the configured
// window closest to running out (never the one-second burst guard); refused, a 429 whose
// headers, `retry_after` (and Retry-After) and `limit_window` all describe the window that
// refused. When Redis fails, this process's counters decide (auth/redis-fallback.ts): never a
// 5xx for a limit, `degraded` for operators.
import { HallmarkError } from '@hallmark/kit';
import type { KeyAuth } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { GROUP_WINDOWS, keyWindows, type Window } from '../auth/limits.js';
import { clientBucket } from '../auth/throttle.js';
import type { RateGroup } from '../auth/types.js';
import { RedisFallback } from '../auth/redis-fallback.js';
import { leaseBlock, RedisLeases, TAKE, type LeaseAdmission, type TakeScript } from '../auth/redis-leases.js';
import { WindowCounters } from '../auth/window-counters.js';

export interface RateLimitOptions {
  redis?: Redis;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** A limiter on the rate-limit store (Redis or memory) for one window; shared per window. */
    limiterFor(w: Window): RateLimiterAbstract;
    /** The shared store's state, when there is one (Redis): degraded while it fails. */
    rateLimitStore?: RedisFallback;
  }
}

/** How a refused window is named in the 429's `limit_window`. */
const windowName = (w: Window): string => (w.name === 'min' ? 'minute' : w.name);

/** Groups of unauthenticated routes: counted per client address. */
const PUBLIC_GROUPS: ReadonlySet<string> = new Set(['public', 'verify_page', 'platform_webhook']);

/** The key prefix of a window's counters (rate-limiter-flexible's `keyPrefix`). */
const prefixOf = (w: Window) => `hm_rl:${w.name}:${w.points}:${w.durationSec}`;

/** One point given back to a running window (never below 0, never to an ended one). */
const REFUND = `local count = tonumber(redis.call('get', KEYS[1]) or '0')
if count > 0 then return redis.call('decr', KEYS[1]) end
return 0`;

type RefundScript = (numKeys: number, key: string) => Promise<number>;

export default fp(async function rateLimit(app: FastifyInstance, opts: RateLimitOptions) {
  const { redis } = opts;
  redis?.defineCommand('hmTake', { lua: TAKE });
  redis?.defineCommand('hmRefund', { lua: REFUND });
  const leases = redis
    ? new RedisLeases((redis as unknown as { hmTake: TakeScript }).hmTake.bind(redis) as TakeScript)
    : undefined;
  const refundScript = redis
    ? ((redis as unknown as { hmRefund: RefundScript }).hmRefund.bind(redis) as RefundScript)
    : undefined;
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (w: Window): RateLimiterAbstract => {
    const id = `${w.name}:${w.points}:${w.durationSec}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const common = { keyPrefix: prefixOf(w), points: w.points, duration: w.durationSec };
      // On Redis with an in-memory insurance limiter: a Redis failure is counted here instead.
      limiter = opts.redis
        ? new RateLimiterRedis({
            ...common,
            storeClient: opts.redis,
            insuranceLimiter: new RateLimiterMemory(common),
          })
        : new RateLimiterMemory(common);
      limiters.set(id, limiter);
    }
    return limiter;
  };
  app.decorate('limiterFor', limiterFor);

  // Without Redis the per-request windows are counted synchronously (auth/window-counters.ts):
  // no promise, no timer per request. `limiterFor` stays rate-limiter-flexible's: its windows
  // (gifts, verification events) have names of their own, so the two stores never share one.
  // With Redis they are the fallback while it fails.
  const counters = new WindowCounters();
  app.addHook('onClose', (_app, done) => (counters.close(), leases?.close(), done()));
  const fallback = redis ? new RedisFallback(app.log) : undefined;
  if (fallback) app.decorate('rateLimitStore', fallback);

  /**
   * The windows a request takes a point from, and whom they count; none for other routes.
   * `refundable`: its group counts accepted requests only (the group's window is the last).
   */
  function planOf(
    request: FastifyRequest,
  ): { windows: readonly Planned[]; subject: string; refundable?: boolean } | undefined {
    const config = request.routeOptions.config;
    const group = config?.rateGroupFor ? config.rateGroupFor(request) : config?.rateGroup;
    const auth = request.auth;
    if (auth)
      return {
        windows: plannedFor(auth.key ?? SESSION, group),
        subject: auth.subject,
        refundable: group !== undefined && GROUP_WINDOWS[group].acceptedOnly,
      };
    if (group && PUBLIC_GROUPS.has(group))
      return { windows: plannedFor(PUBLIC, group), subject: `ip:${clientBucket(request.ip)}` };
    return undefined;
  }

  // A group counting accepted requests only (bulk retry and fix): the point an admitted
  // request took from the group's window goes back when the answer is not a 2xx. Only those
  // routes carry the hook; `charged` holds their admitted requests until they are answered.
  const charged = new WeakMap<FastifyRequest, { prefix: string; subject: string; local: boolean }>();
  const refundUnaccepted = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const c = charged.get(request);
    if (c && reply.statusCode >= 300) {
      if (refundScript && !c.local)
        refundScript(1, `${c.prefix}:{${c.subject}}`).catch((err: unknown) =>
          request.log.warn({ err }, 'rate-limit refund failed'),
        );
      else counters.refund(c.prefix, c.subject);
    }
    done();
  };
  app.addHook('onRoute', (route) => {
    const group = route.config?.rateGroup;
    if (!group || !GROUP_WINDOWS[group].acceptedOnly) return;
    const own = route.onResponse;
    route.onResponse = [...(own ? (Array.isArray(own) ? own : [own]) : []), refundUnaccepted] as never;
  });
  const chargeIfRefundable = (
    request: FastifyRequest,
    plan: { windows: readonly Planned[]; subject: string; refundable?: boolean },
    refused: number,
    local: boolean,
  ) => {
    if (plan.refundable && refused < 0)
      charged.set(request, {
        prefix: plan.windows[plan.windows.length - 1]!.prefix,
        subject: plan.subject,
        local,
      });
  };

  /** The decision of this process's counters (no Redis, or Redis failing). */
  const admitLocally = (
    request: FastifyRequest,
    reply: FastifyReply,
    plan: { windows: readonly Planned[]; subject: string; refundable?: boolean },
  ) => {
    const now = Date.now();
    const { counts, refused } = counters.admit(plan.windows, plan.subject, now);
    chargeIfRefundable(request, plan, refused, true);
    const taken = plan.windows.map(({ w }, i) => ({
      w,
      remaining: Math.max(w.points - counts[i]!.consumed, 0),
      msBeforeNext: counts[i]!.msBeforeNext,
    }));
    return verdict(reply, taken, refused, now);
  };

  /** A decision of the Redis store (its leases or a call) as the headers and refusal show it. */
  const onRedis = (
    request: FastifyRequest,
    reply: FastifyReply,
    plan: { windows: readonly Planned[]; subject: string; refundable?: boolean },
    { states, refused }: LeaseAdmission,
  ) => {
    chargeIfRefundable(request, plan, refused, false);
    const taken = plan.windows.map(({ w }, i) => ({ w, ...states[i]! }));
    return verdict(reply, taken, refused, Date.now());
  };

  app.addHook('onRequest', (request, reply, done) => {
    const plan = planOf(request);
    if (!plan) return done();
    if (leases) {
      // A point this gateway holds a lease on: admitted here, no call, no promise.
      const local = leases.admitLocally(plan.windows, plan.subject);
      if (local) return done(onRedis(request, reply, plan, local));
      leases.admit(plan.windows, plan.subject).then(
        (admission) => {
          fallback!.answered();
          done(onRedis(request, reply, plan, admission));
        },
        (err: unknown) => {
          // Redis failed (down, unreachable, a timeout): this process decides, never a 5xx.
          fallback!.failed(err);
          done(admitLocally(request, reply, plan));
        },
      );
      return;
    }
    done(admitLocally(request, reply, plan));
  });
});

/** A window with its counters' key prefix, planned once per key (or group) and reused. */
interface Planned {
  w: Window;
  prefix: string;
  points: number;
  durationSec: number;
  /** Points leased per Redis call (auth/redis-leases.ts); none for a window that gives points back. */
  block: number;
}

/** One window after the request: its points left and the ms until it restarts. */
interface Taken {
  w: Window;
  remaining: number;
  msBeforeNext: number;
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
    planned = windows.map((w) => ({
      w,
      prefix: prefixOf(w),
      points: w.points,
      durationSec: w.durationSec,
      // A refund goes to Redis's count: a window that refunds takes its points one by one.
      block: w.acceptedOnly ? 0 : leaseBlock(w.points),
    }));
    byGroup.set(group ?? '', planned);
  }
  return planned;
}

/**
 * The headers, and the refusal when a window refused (`refused` its index, else -1: the
 * request goes on). Admitted, the headers describe the limits a client configured and the
 * spec documents (per minute, per hour, per endpoint group): the one closest to running out,
 * never the one-second burst guard. Refused, they describe the window that refused (its
 * limit, Remaining 0, its reset), as do `retry_after` and `limit_window`.
 */
function verdict(
  reply: FastifyReply,
  taken: readonly Taken[],
  refused: number,
  now: number,
): HallmarkError | undefined {
  if (refused < 0) {
    let shown: Taken | undefined;
    for (const t of taken) if (t.w.name !== 'burst' && (!shown || t.remaining < shown.remaining)) shown = t;
    setHeaders(reply, shown ?? taken.reduce((a, b) => (b.remaining < a.remaining ? b : a)), now);
    return undefined;
  }
  const worst = taken[refused]!;
  setHeaders(reply, worst, now);
  const retryAfter = Math.max(1, Math.ceil(worst.msBeforeNext / 1000));
  return new HallmarkError('rate_limit_exceeded', {
    message:
      worst.w.name === 'burst'
        ? `Burst limit exceeded: at most ${worst.w.points} requests per second for this key. ` +
          `Retry after ${retryAfter} second(s).`
        : `Rate limit exceeded: ${worst.w.points} requests per ${spanOf(worst.w.durationSec)} ` +
          `(${windowName(worst.w)}). Retry after ${retryAfter} second(s).`,
    extras: { retry_after: retryAfter, limit_window: windowName(worst.w) },
  });
}

/** A window's length in words: "minute", "hour", "15 minutes". */
function spanOf(sec: number): string {
  if (sec === 60) return 'minute';
  if (sec === 3600) return 'hour';
  return sec % 60 === 0 ? `${sec / 60} minutes` : `${sec} seconds`;
}

function setHeaders(reply: FastifyReply, t: Taken, now: number) {
  void reply.header('x-ratelimit-limit', String(t.w.points));
  void reply.header('x-ratelimit-remaining', String(t.remaining));
  void reply.header('x-ratelimit-reset', String(Math.ceil((now + t.msBeforeNext) / 1000)));
}
