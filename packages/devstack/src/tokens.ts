// Dev session tokens: HS256 JWTs with the claims the gateway expects (architecture.md ›
// Users and enterprises). Only for local use; production verifies tokens from its IdP.
import { SignJWT } from 'jose';

export interface DevTokenClaims {
  ent: string;
  sub: string;
  email?: string;
  role?: 'owner' | 'admin' | 'member';
  /** Lifetime in seconds (default 30 days). */
  ttlSec?: number;
}

export async function signDevToken(secret: string, claims: DevTokenClaims): Promise<string> {
  return new SignJWT({
    ent: claims.ent,
    email: claims.email ?? `${claims.sub}@hallmark.local`,
    role: claims.role ?? 'owner',
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.ttlSec ?? 30 * 24 * 3600))
    .sign(new TextEncoder().encode(secret));
}
