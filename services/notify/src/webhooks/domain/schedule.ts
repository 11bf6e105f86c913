// The retry schedule (spec › Events, delivery rule 4; Limits 6), as pure arithmetic.
//
// HALLMARK_WEBHOOK_RETRY_SCHEDULE lists the waits before each retry, in seconds (default
// 60,300,900,3600,21600). A delivery is attempted at once, then once after each wait:
// 1 + schedule.length attempts (6 by default: now, +1 m, +5 m, +15 m, +1 h, +6 h). We read
// the spec's "after 5 failed attempts the webhook is marked failed" as the five scheduled
// retries having failed — the only reading that uses every wait it lists.

export const DEFAULT_RETRY_SCHEDULE_S = [60, 300, 900, 3600, 21600];

export const maxAttemptsOf = (schedule: readonly number[]): number => schedule.length + 1;

/**
 * When attempt `attempt` (1-based, just made) failed at `now`: the time of the next one,
 * or null when it was the last (`maxAttempts`).
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempt: number,
  maxAttempts: number,
  now: Date,
): Date | null {
  const waitS = retryDelayS(schedule, attempt, maxAttempts);
  return waitS === null ? null : new Date(now.getTime() + waitS * 1000);
}

/** 2xx is success; everything else (3xx included: redirects are not followed) is a failure. */
export const isSuccess = (statusCode: number | null): boolean =>
  statusCode !== null && statusCode >= 200 && statusCode < 300;

/** Seconds to wait after failed attempt `attempt`, or null when it was the last. */
export function retryDelayS(
  schedule: readonly number[],
  attempt: number,
  maxAttempts: number,
): number | null {
  if (attempt >= maxAttempts) return null;
  return schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 0;
}

/**
 * Where a delivery goes after an attempt with this status code: succeeded; pending again
 * after `waitS`; or failed when it was the last attempt.
 */
export function nextAfter(
  schedule: readonly number[],
  claim: { attempt: number; maxAttempts: number },
  statusCode: number | null,
): { status: 'succeeded' | 'pending' | 'failed'; waitS: number | null } {
  if (isSuccess(statusCode)) return { status: 'succeeded', waitS: null };
  const waitS = retryDelayS(schedule, claim.attempt, claim.maxAttempts);
  return { status: waitS === null ? 'failed' : 'pending', waitS };
}
