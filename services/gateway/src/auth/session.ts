// User sessions: JWTs verified with HS256 (HALLMARK_JWT_SECRET) or a JWKS (RS256/ES256 from
// HALLMARK_JWKS_URL). The algorithm list is pinned, so an `alg: none` or an HS/RS
// confusion token is refused; `exp` is required and enforced.
import { HallmarkError, isId } from '@hallmark/kit';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export interface SessionClaims {
  sub: string;
  ent: string;
  /** The `email` claim when it is a string ('' otherwise). */
  email: string;
  /**
   * The e-mail the session proves: `email` when it is a non-empty string and the token does
   * not mark it unverified (`email_verified: false`), else null. Checks that hinge on the
   * address (a voucher's or gift's recipient) use this and refuse when it is null.
   */
  provenEmail: string | null;
  role: 'owner' | 'admin' | 'member';
}

export type SessionVerifier = (token: string) => Promise<SessionClaims>;

const ROLES = new Set(['owner', 'admin', 'member']);

export function createSessionVerifier(opts: { secret?: string; jwksUrl?: string }): SessionVerifier {
  const hmacKey = opts.secret ? new TextEncoder().encode(opts.secret) : undefined;
  const jwks = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : undefined;
  return async (token) => {
    let payload: JWTPayload;
    try {
      if (jwks) {
        ({ payload } = await jwtVerify(token, jwks, {
          algorithms: ['RS256', 'ES256'],
          requiredClaims: ['exp', 'sub'],
        }));
      } else if (hmacKey) {
        ({ payload } = await jwtVerify(token, hmacKey, {
          algorithms: ['HS256'],
          requiredClaims: ['exp', 'sub'],
        }));
      } else {
        throw new Error('no session verification configured');
      }
    } catch (err) {
      throw new HallmarkError('invalid_token', { cause: err });
    }
    const { sub, ent, email, email_verified, role } = payload as JWTPayload & Record<string, unknown>;
    if (typeof sub !== 'string' || !isId('enterprise', ent)) {
      throw new HallmarkError('invalid_token', {
        message: 'The session token lacks a valid `sub` or `ent` claim.',
      });
    }
    return {
      sub,
      ent,
      email: typeof email === 'string' ? email : '',
      provenEmail:
        typeof email === 'string' && email.trim() && email_verified !== false ? email.trim() : null,
      role: typeof role === 'string' && ROLES.has(role) ? (role as SessionClaims['role']) : 'member',
    };
  };
}
