// Rate limits per key (spec: Limits). Every key stores concrete numbers, so the gateway
// never has to know the defaults: production 1,000/min, 50,000/h, burst 100; test 100/min,
// 5,000/h, burst 20. A custom `rateLimit` (requests per minute) scales the hourly limit and
// the burst with the type's default ratios, the burst never below the type's default or,
// below that, the rate itself (a 5/min key gets its 5 back to back, not 1 a second). Enterprise keys are limited by
// `requestsPerHour` (default 1,000, the bulk JSON form's default) and `burstLimit`.

export interface KeyLimits {
  perMinute: number;
  perHour: number;
  burst: number;
}

export const TYPE_DEFAULT_LIMITS = {
  production: { perMinute: 1000, perHour: 50_000, burst: 100 },
  test: { perMinute: 100, perHour: 5000, burst: 20 },
} as const satisfies Record<string, KeyLimits>;

export const ENTERPRISE_DEFAULT_PER_HOUR = 1000;
export const ENTERPRISE_DEFAULT_BURST = 100;

export const MAX_RATE_LIMIT_PER_MINUTE = 100_000;
export const MAX_REQUESTS_PER_HOUR = 1_000_000;
export const MAX_BURST_LIMIT = 10_000;

/** Limits of a production, test or restricted key with an optional custom per-minute rate. */
export function limitsForRate(
  type: 'production' | 'test' | 'restricted',
  perMinute: number | null,
): KeyLimits {
  const base = type === 'test' ? TYPE_DEFAULT_LIMITS.test : TYPE_DEFAULT_LIMITS.production;
  if (perMinute === null) return { ...base };
  return {
    perMinute,
    perHour: Math.round((perMinute * base.perHour) / base.perMinute),
    burst: Math.max(Math.round((perMinute * base.burst) / base.perMinute), Math.min(perMinute, base.burst)),
  };
}

/** Limits of an enterprise key. Per minute equals per hour: the hour is the binding limit. */
export function limitsForEnterprise(requestsPerHour: number | null, burstLimit: number | null): KeyLimits {
  const perHour = requestsPerHour ?? ENTERPRISE_DEFAULT_PER_HOUR;
  return { perMinute: perHour, perHour, burst: burstLimit ?? Math.min(ENTERPRISE_DEFAULT_BURST, perHour) };
}
