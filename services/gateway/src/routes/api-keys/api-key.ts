// An API key's public shape (spec › Resources › API key), defined once: every endpoint that
// answers with a key serialises it with this schema (the document's `ApiKey` component), and
// `presentKey` builds it from the keys service's record. Secrets appear only in the create and
// rotate answers (`key`).
import type { ApiKey as KeyRecord } from '@hallmark/proto/keys/v1/keys';
import type { Access } from '../../endpoint/define.js';
import { defineResource } from '../../endpoint/resource.js';
import { bool, int, list, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { orNull } from '../shared.js';

export const TAGS = ['API keys'];
/** Managing keys needs `admin.*` (a session holds it). */
export const ADMIN: Access = { auth: 'either', scope: 'admin.*' };

export const ApiKey = defineResource(
  'ApiKey',
  Type.Object(
    {
      id: Type.String({ pattern: '^apikey_', maxLength: 64 }),
      name: str(100),
      type: oneOf(
        ['production', 'test', 'restricted', 'enterprise'],
        '`enterprise`: made by POST /api/enterprise/api-keys (unversioned scopes)',
      ),
      permissions: list(str(64), 50),
      rateLimit: Type.Optional(int('Requests per minute')),
      expiresAt: Type.Optional(nullable(time)),
      createdAt: time,
      lastUsedAt: Type.Optional(nullable(time)),
      status: oneOf(['active', 'revoked', 'expired']),
      keyPrefix: str(32, 'The non-secret start of the key, e.g. pk_live_a1B2'),
      allowedIps: Type.Optional(list(str(64), 100)),
      livemode: bool,
      accessLevel: Type.Optional(oneOf(['owner', 'admin', 'editor', 'viewer'])),
      revokedAt: Type.Optional(time),
      key: Type.Optional(str(64, 'The secret: only in create and rotate answers')),
      previousKeyValidUntil: Type.Optional(nullable(time)),
    },
    { description: 'An API key (spec › Resources › API key)' },
  ),
  {
    example: {
      id: 'apikey_7hQm2ZxP0aLc9TbN4yVw1eRk',
      name: 'Reporting',
      type: 'restricted',
      permissions: ['reports.read'],
      rateLimit: 60,
      expiresAt: null,
      createdAt: '2025-06-01T10:00:00Z',
      lastUsedAt: null,
      status: 'active',
      keyPrefix: 'pk_restricted_a1B2',
      allowedIps: [],
      livemode: true,
    },
  },
);

export function presentKey(k: KeyRecord): Static<typeof ApiKey> {
  return {
    id: k.id,
    name: k.name,
    type: k.type,
    permissions: k.permissions,
    rateLimit: k.rate_limit,
    expiresAt: orNull(k.expires_at),
    createdAt: k.created_at,
    lastUsedAt: orNull(k.last_used_at),
    status: k.status,
    keyPrefix: k.key_prefix,
    allowedIps: k.allowed_ips,
    livemode: k.livemode,
    accessLevel: k.access_level || undefined,
    revokedAt: orNull(k.revoked_at) ?? undefined,
  };
}

/** Request fields: scopes and IP allowlists. */
export const scopeList = list(Type.String({ maxLength: 64 }), 50);
export const ipList = list(Type.String({ maxLength: 64 }), 100);
export const rateLimit = Type.Integer({ minimum: 1, maximum: 100000 });
