// Restate request identity: which Restate servers a service's endpoint accepts calls from.
import { ConfigError } from '../config.js';

/**
 * Restate request identity: the public keys (`publickeyv1_…`, comma-separated in
 * HALLMARK_RESTATE_IDENTITY_KEYS) whose signatures a service's Restate endpoint accepts. Set,
 * the endpoint refuses every request not signed by a Restate server holding one of the
 * private keys (the SDK's `withIdentityV1`); unset (the dev default), it accepts any caller.
 */
export function restateIdentityKeys(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = (env.HALLMARK_RESTATE_IDENTITY_KEYS ?? '').trim();
  if (!raw) return [];
  const keys = raw.split(',').map((k) => k.trim());
  const bad = keys.filter((k) => !/^publickeyv1_[1-9A-HJ-NP-Za-km-z]{32,64}$/.test(k));
  if (bad.length)
    throw new ConfigError([
      `HALLMARK_RESTATE_IDENTITY_KEYS: expected publickeyv1_… keys, got ${bad.join(', ')}`,
    ]);
  return keys;
}

/** Applies `restateIdentityKeys()` to an endpoint (a no-op when none are configured). */
export function withRestateIdentity<E extends { withIdentityV1(...keys: string[]): E }>(endpoint: E): E {
  const keys = restateIdentityKeys();
  return keys.length ? endpoint.withIdentityV1(...keys) : endpoint;
}
