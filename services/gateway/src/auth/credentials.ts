// Where a credential may come from (spec › Authentication 1–4), in order of preference.
import type { FastifyRequest } from 'fastify';

export type Credential =
  | { kind: 'api_key'; secret: string; fromQuery: boolean }
  | { kind: 'session'; token: string }
  | { kind: 'none' };

const BLANK = /\s/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function extractCredential(request: FastifyRequest): Credential {
  const authz = request.headers.authorization;
  if (typeof authz === 'string' && authz.length > 0) {
    // The common case first: `Bearer pk_…` with no other blank is an API key (what the
    // patterns below answer for it), read without running them.
    if (authz.startsWith('Bearer pk_')) {
      const secret = authz.slice(7);
      if (!BLANK.test(secret)) return { kind: 'api_key', secret, fromQuery: false };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    const value = m?.[1] ?? '';
    if (JWT_SHAPE.test(value) && !value.startsWith('pk_')) return { kind: 'session', token: value };
    return { kind: 'api_key', secret: value, fromQuery: false };
  }
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0)
    return { kind: 'api_key', secret: header.trim(), fromQuery: false };
  const query = request.query as Record<string, unknown> | undefined;
  if (typeof query?.api_key === 'string' && query.api_key.length > 0) {
    return { kind: 'api_key', secret: query.api_key, fromQuery: true };
  }
  return { kind: 'none' };
}
