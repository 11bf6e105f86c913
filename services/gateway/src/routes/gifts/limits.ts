// The gift limiters (spec › Limits: giftTokenAttemptRateLimit, giftClaimRateLimit; the spec
// leaves their values open). Defaults, each configurable on the gateway:
//   giftTokenAttemptRateLimit  10 invalid claim-token attempts per client address per 15 min
//                              (HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT / _WINDOW_SEC): unknown, used,
//                              revoked and expired tokens on the claim page and the claim count;
//                              past it both answer 429 before looking the token up.
//   giftClaimRateLimit         10 claims per user per hour (HALLMARK_GIFT_CLAIM_LIMIT / _WINDOW_SEC).
//   resend                     5 per gift per hour (HALLMARK_GIFT_RESEND_LIMIT / _WINDOW_SEC).
//   create per enterprise      100 gifts per enterprise per hour
//                              (HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT / _WINDOW_SEC).
//   resend per enterprise      20 resends per enterprise per hour
//                              (HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT / _WINDOW_SEC).
// The two per-enterprise ones bound the e-mails and SMS with free text an enterprise can have
// Hallmark send: create → revoke → create with a new address each time is a new gift each
// time, so a per-gift limit alone does not bound it (docs/security.md › Messaging limits).
// They live on the gateway's rate-limit store (Redis when REDIS_URL is set, shared by replicas).
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { clientBucket } from '../../auth/throttle.js';
import type { Config } from '../../config.js';

const tooMany = (reply: FastifyReply, msBeforeNext: number, message: string) => {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  void reply.header('retry-after', String(retryAfter));
  return new HallmarkError('rate_limit_exceeded', { message, extras: { retry_after: retryAfter } });
};

export function giftLimiters(app: FastifyInstance, config: Config) {
  const attempts = app.limiterFor({
    name: 'gift_token_attempt',
    points: config.HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT,
    durationSec: config.HALLMARK_GIFT_TOKEN_ATTEMPT_WINDOW_SEC,
  });
  const claims = app.limiterFor({
    name: 'gift_claim',
    points: config.HALLMARK_GIFT_CLAIM_LIMIT,
    durationSec: config.HALLMARK_GIFT_CLAIM_WINDOW_SEC,
  });
  const resends = app.limiterFor({
    name: 'gift_resend',
    points: config.HALLMARK_GIFT_RESEND_LIMIT,
    durationSec: config.HALLMARK_GIFT_RESEND_WINDOW_SEC,
  });
  const creates = app.limiterFor({
    name: 'gift_create_enterprise',
    points: config.HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT,
    durationSec: config.HALLMARK_GIFT_CREATE_ENTERPRISE_WINDOW_SEC,
  });
  const enterpriseResends = app.limiterFor({
    name: 'gift_resend_enterprise',
    points: config.HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT,
    durationSec: config.HALLMARK_GIFT_RESEND_ENTERPRISE_WINDOW_SEC,
  });
  const consume = async (limiter: typeof claims, key: string, reply: FastifyReply, message: string) => {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw tooMany(reply, err.msBeforeNext, message);
      throw err;
    }
  };
  return {
    /** 429 when this client already spent its invalid-token attempts. */
    async checkAttempts(request: FastifyRequest, reply: FastifyReply) {
      const res = await attempts.get(`ip:${clientBucket(request.ip)}`);
      if (res && res.consumedPoints >= config.HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT)
        throw tooMany(
          reply,
          res.msBeforeNext,
          'Too many invalid claim links from this client. Try again later.',
        );
    },
    /** Counts one invalid-token attempt of this client. */
    async countInvalid(request: FastifyRequest) {
      await attempts.consume(`ip:${clientBucket(request.ip)}`).catch(() => undefined);
    },
    claim: (userId: string, reply: FastifyReply) =>
      consume(claims, `user:${userId}`, reply, 'Too many gift claims by this user. Try again later.'),
    resend: (transferId: string, reply: FastifyReply) =>
      consume(resends, `gift:${transferId}`, reply, 'This gift was resent too often. Try again later.'),
    /** One gift created by the enterprise (each one notifies its recipient). */
    create: (enterpriseId: string, reply: FastifyReply) =>
      consume(
        creates,
        `ent:${enterpriseId}`,
        reply,
        'This enterprise created too many gifts in a short time. Try again later.',
      ),
    /** A create the service refused sent nothing: its point is given back. */
    uncountCreate: (enterpriseId: string) =>
      creates.reward(`ent:${enterpriseId}`, 1).then(
        () => undefined,
        () => undefined,
      ),
    /** One resend by the enterprise, whichever gift. */
    resendByEnterprise: (enterpriseId: string, reply: FastifyReply) =>
      consume(
        enterpriseResends,
        `ent:${enterpriseId}`,
        reply,
        'This enterprise resent too many gifts in a short time. Try again later.',
      ),
  };
}

export type GiftLimiters = ReturnType<typeof giftLimiters>;

/** Whether an error is the answer to an invalid (unknown, used, revoked, expired) token. */
export const isInvalidToken = (err: unknown): boolean =>
  err instanceof HallmarkError && err.code === 'resource_not_found';

const byGateway = new WeakMap<FastifyInstance['limiterFor'], GiftLimiters>();

/**
 * The gift limiters of the gateway serving `request`, made once per gateway (its
 * `limiterFor` is the same function in every plugin context; the limiters behind it are one
 * per window either way), for declared handlers, which get the route dependencies but not
 * the plugin's instance.
 */
export function limitsOf(request: FastifyRequest, config: Config): GiftLimiters {
  const server = request.server;
  let limits = byGateway.get(server.limiterFor);
  if (!limits) {
    limits = giftLimiters(server, config);
    byGateway.set(server.limiterFor, limits);
  }
  return limits;
}
