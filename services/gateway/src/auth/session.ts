// User sessions: JWTs verified with HS256 (HALLMARK_JWT_SECRET) or a JWKS (RS256/ES256 from
// HALLMARK_JWKS_URL). The algorithm list is pinned, so an `alg: none` or an HS/RS
// confusion token is refused. With both set (the dev stack: the CLI's HS256 tokens beside the
// console's sign-in through a local OpenID provider), a token's header picks its verifier, and
// each verifier still pins its own algorithms: an HS256 token is only ever checked against the
// secret, never against a key of the JWKS; `exp` is required and enforced, and a token may not live
// longer than `maxTtlSec` (HALLMARK_SESSION_MAX_TTL_SEC, default 24 h): a stolen token with
// a lifetime of years would otherwise never stop working.
import { HallmarkError, isEmailAddress, isId } from '@hallmark/kit';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';

export interface SessionClaims {
  sub: string;
  ent: string;
  /** The `email` claim when it is a string ('' otherwise). */
  email: string;
  /**
   * The e-mail the session proves (`provenEmail` below), else null. Checks that hinge on the
   * address (a voucher's or gift's recipient) use this and refuse when it is null.
   */
  provenEmail: string | null;
  role: 'owner' | 'admin' | 'member';
}

/**
 * The address a token proves: its `email` claim, trimmed, when that is a valid address and
 * `email_verified` is absent (issuers that only mint verified addresses omit it) or the
 * boolean `true`. Anything else — `false`, the string "false" (truthy, so a loose check
 * reads it as verified), "true", 1, null — proves nothing: fail closed. Pure.
 */
export function provenEmail(claims: Record<string, unknown>): string | null {
  const { email, email_verified: verified } = claims;
  if (typeof email !== 'string' || !(verified === undefined || verified === true)) return null;
  const trimmed = email.trim();
  return isEmailAddress(trimmed) ? trimmed : null;
}

export type SessionVerifier = (token: string) => Promise<SessionClaims>;

const ROLES = new Set(['owner', 'admin', 'member']);
export const DEFAULT_SESSION_MAX_TTL_SEC = 86_400;
/** Issuers' clocks drift: a token issued "a little in the future" still passes. */
const CLOCK_SKEW_SEC = 60;

/** Why a token's lifetime is refused, or null: exp − iat and exp − now are both capped. */
export function lifetimeProblem(payload: JWTPayload, maxTtlSec: number, nowSec: number): string | null {
  const exp = payload.exp!;
  if (typeof payload.iat === 'number' && exp - payload.iat > maxTtlSec)
    return `The session token lives ${exp - payload.iat} s; at most ${maxTtlSec} s are accepted.`;
  if (exp - nowSec > maxTtlSec + CLOCK_SKEW_SEC)
    return `The session token expires in ${exp - nowSec} s; at most ${maxTtlSec} s are accepted.`;
  return null;
}

export function createSessionVerifier(opts: {
  secret?: string;
  /**
   * HALLMARK_JWT_PREVIOUS_SECRET: during a rotation, tokens signed with the secret being
   * replaced are still accepted (only when the current secret's signature check fails).
   */
  previousSecret?: string;
  jwksUrl?: string;
  maxTtlSec?: number;
}): SessionVerifier {
  const maxTtlSec = opts.maxTtlSec ?? DEFAULT_SESSION_MAX_TTL_SEC;
  const hmacKey = opts.secret ? new TextEncoder().encode(opts.secret) : undefined;
  const previousKey =
    opts.secret && opts.previousSecret ? new TextEncoder().encode(opts.previousSecret) : undefined;
  const verifyHs = (token: string, key: Uint8Array) =>
    jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
  const jwks = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : undefined;
  return async (token) => {
    let payload: JWTPayload;
    try {
      if (jwks && !(hmacKey && decodeProtectedHeader(token).alg === 'HS256')) {
        ({ payload } = await jwtVerify(token, jwks, {
          algorithms: ['RS256', 'ES256'],
          requiredClaims: ['exp', 'sub'],
        }));
      } else if (hmacKey) {
        try {
          ({ payload } = await verifyHs(token, hmacKey));
        } catch (err) {
          if (!previousKey || (err as { code?: string }).code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED')
            throw err;
          ({ payload } = await verifyHs(token, previousKey));
        }
      } else {
        throw new Error('no session verification configured');
      }
    } catch (err) {
      throw new HallmarkError('invalid_token', { cause: err });
    }
    const tooLong = lifetimeProblem(payload, maxTtlSec, Math.floor(Date.now() / 1000));
    if (tooLong) throw new HallmarkError('invalid_token', { message: tooLong });
    const { sub, ent, email, role } = payload as JWTPayload & Record<string, unknown>;
    if (typeof sub !== 'string' || !isId('enterprise', ent)) {
      throw new HallmarkError('invalid_token', {
        message: 'The session token lacks a valid `sub` or `ent` claim.',
      });
    }
    return {
      sub,
      ent,
      email: typeof email === 'string' ? email : '',
      provenEmail: provenEmail(payload),
      role: typeof role === 'string' && ROLES.has(role) ? (role as SessionClaims['role']) : 'member',
    };
  };
}
