// Rate limits of the spec's Limits table, as data.
import type { KeyAuth } from '@hallmark/proto/keys/v1/keys';
import type { RateGroup } from './types.js';

export interface Window {
  /** Name used in the limiter's key space. */
  name: string;
  points: number;
  durationSec: number;
  /** Only an accepted (2xx) request uses it: an answer of 300 or more gives its point back. */
  acceptedOnly?: boolean;
}

const MIN = 60;
const HOUR = 3600;

/**
 * Per-key windows by key type: per minute, per hour, and a one-second burst. The burst guard
 * of a production, test or restricted key is never tighter than the type's default burst or,
 * below it, the key's own per-minute limit: a key with `rateLimit: 5` gets its 5 back to back
 * (keys stored before this rule carry a scaled-down burst of 1). An enterprise key's
 * `burstLimit` is the key holder's own choice and applies as set.
 */
export function keyWindows(key: KeyAuth | undefined): Window[] {
  if (!key) {
    // Sessions: counted per enterprise, at production defaults.
    return [
      { name: 'min', points: 1000, durationSec: MIN },
      { name: 'hour', points: 50_000, durationSec: HOUR },
      { name: 'burst', points: 100, durationSec: 1 },
    ];
  }
  const defaults =
    key.type === 'test'
      ? { min: 100, hour: 5_000, burst: 20 }
      : key.type === 'restricted'
        ? { min: 100, hour: 5_000, burst: 20 }
        : { min: 1000, hour: 50_000, burst: 100 };
  const min = key.rate_limit_per_minute > 0 ? key.rate_limit_per_minute : defaults.min;
  const hour = key.rate_limit_per_hour > 0 ? key.rate_limit_per_hour : Math.max(defaults.hour, min);
  const floor = Math.min(defaults.burst, min);
  const burst =
    key.burst_limit <= 0
      ? floor
      : key.type === 'enterprise'
        ? key.burst_limit
        : Math.max(key.burst_limit, floor);
  return [
    { name: 'min', points: min, durationSec: MIN },
    { name: 'hour', points: hour, durationSec: HOUR },
    { name: 'burst', points: burst, durationSec: 1 },
  ];
}

/** Per-endpoint-group windows, counted per key (or per enterprise for sessions). */
export const GROUP_WINDOWS: Record<RateGroup, Window> = {
  voucher_read: { name: 'voucher_read', points: 100, durationSec: MIN },
  voucher_write: { name: 'voucher_write', points: 50, durationSec: MIN },
  voucher_redeem: { name: 'voucher_redeem', points: 200, durationSec: MIN },
  bulk_create: { name: 'bulk_create', points: 10, durationSec: HOUR },
  bulk_poll: { name: 'bulk_poll', points: 100, durationSec: 15 * MIN },
  bulk_download: { name: 'bulk_download', points: 50, durationSec: HOUR },
  // Retry and row fix share it; a rejected attempt (a bad fix, an unknown job) costs nothing.
  bulk_retry: { name: 'bulk_retry', points: 5, durationSec: HOUR, acceptedOnly: true },
  bulk_json: { name: 'bulk_json', points: 1000, durationSec: HOUR },
  // Each queued address is a relayer transaction's worth of gas (docs/security.md).
  allowlist_write: { name: 'allowlist_write', points: 60, durationSec: HOUR },
  // Unauthenticated routes, per client address (spec › Limits 9).
  public: { name: 'public', points: 300, durationSec: MIN },
  // The verification page runs five chain reads per view: tighter, per client address.
  verify_page: { name: 'verify_page', points: 60, durationSec: MIN },
  // The platform's signed order webhooks, per sending address: a flash sale is thousands of
  // orders a minute from a few of the platform's addresses, and a 429 there delays paid
  // orders by the platform's backoff (hours). A forged flood still stops here, and fails its
  // HMAC before anything is recorded.
  platform_webhook: { name: 'platform_webhook', points: 6000, durationSec: MIN },
};
