// Rotation: a new secret replaces the current one; the old one keeps verifying until
// `grace_until` so callers can roll the new secret out without downtime.
import { invalidParam } from '@hallmark/kit/errors';

export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 7 * 86_400;

/** Grace in seconds: default 24 h when unset, 0 ends the old secret at once, at most 7 days. */
export function graceSeconds(value: number | undefined): number {
  if (value === undefined) return DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(value) || value < 0 || value > MAX_GRACE_SECONDS)
    throw invalidParam(
      'gracePeriodSeconds',
      `gracePeriodSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}.`,
    );
  return value;
}

export const graceUntil = (now: Date, seconds: number): Date => new Date(now.getTime() + seconds * 1000);
