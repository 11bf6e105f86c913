// Dev session tokens: HS256 JWTs with the claims the gateway expects (architecture.md ›
// Users and enterprises). Only for local use; production verifies tokens from its IdP.
// They live 12 hours by default: the gateway refuses a session longer than
// HALLMARK_SESSION_MAX_TTL_SEC (default 24 h), so a dev token must stay well under it.
import { SignJWT } from 'jose';

export interface DevTokenClaims {
  ent: string;
  sub: string;
  email?: string;
  role?: 'owner' | 'admin' | 'member';
  /** Lifetime in seconds (default DEV_TOKEN_TTL_SEC, 12 hours). */
  ttlSec?: number;
}

export const DEV_TOKEN_TTL_SEC = 12 * 3600;

export async function signDevToken(secret: string, claims: DevTokenClaims): Promise<string> {
  return new SignJWT({
    ent: claims.ent,
    email: claims.email ?? `${claims.sub}@hallmark.local`,
    role: claims.role ?? 'owner',
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.ttlSec ?? DEV_TOKEN_TTL_SEC))
    .sign(new TextEncoder().encode(secret));
}
