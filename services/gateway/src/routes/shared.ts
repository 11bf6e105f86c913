// Small pieces every route file uses.
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { FastifyRequest } from 'fastify';
import type { PublicCache } from '../cache/public-cache.js';
import type { Clients } from '../clients.js';
import type { Config } from '../config.js';
import { idParams } from '../endpoint/schema.js';

export interface RouteDeps {
  clients: Clients;
  config: Config;
  /** What a QR scan reads (cache/public-cache.ts). */
  publicCache: PublicCache;
}

/** The authenticated principal; routes run only after the auth plugin has set it. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.auth) throw new Error('route reached without authentication');
  return request.auth.principal;
}

/** Proto strings are '' when unset; the API says null. */
export const orNull = (s: string | undefined): string | null => (s ? s : null);

/** A path parameter that is an id (≤ 64 characters); declared endpoints use `idParams`. */
export const idParam = idParams;

/**
 * The unversioned error body `{success:false, error, code, param?, request_id}` (and
 * `retry_after` on a 429) of the routes outside /api/v1 (gifts, platform integration).
 */
export const apiError = (description: string) => ({
  description,
  type: 'object',
  required: ['success', 'error', 'code', 'request_id'],
  additionalProperties: true,
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'string' },
    code: { type: 'string' },
    param: { type: 'string' },
    request_id: { type: 'string' },
    retry_after: { type: 'integer', description: 'Seconds to wait (429)' },
  },
});
