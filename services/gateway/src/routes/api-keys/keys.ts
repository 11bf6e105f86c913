// /api/v1/api-keys: create, list, get, update, revoke and rotate keys. A change to a key
// drops the gateway's cached verification of it at once.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, idParams, list, nullable, oneOf, Type } from '../../endpoint/schema.js';
import { orNull, principalOf } from '../shared.js';
import { ADMIN, ApiKey, ipList, presentKey, rateLimit, scopeList, TAGS } from './api-key.js';

export const keyParams = idParams('key_id');

export const createApiKey = defineEndpoint({
  method: 'POST',
  url: '/api/v1/api-keys',
  operationId: 'createApiKey',
  tags: TAGS,
  summary: 'Create an API key (the secret is returned once)',
  description:
    'A key never holds more authority than its creator had when it was made: a key acts for the ' +
    'user who made it. An `admin.*` key made by an enterprise owner or admin manages every key of the ' +
    'enterprise; one made by a member manages only the keys that member made or was shared.',
  access: ADMIN,
  body: closed({
    name: Type.String({ maxLength: 100 }),
    type: oneOf(['production', 'test', 'restricted']),
    permissions: scopeList,
    rateLimit: Type.Optional(rateLimit),
    expiresAt: Type.Optional(
      Type.String({ maxLength: 40, description: 'ISO 8601; optional for every type' }),
    ),
    allowedIps: Type.Optional(ipList),
  }),
  responses: { 201: { description: 'The key, with its secret (shown once)', schema: ApiKey } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const res = await clients.keys.createKey({
      principal: principalOf(request),
      name: b.name,
      type: b.type,
      permissions: b.permissions ?? [],
      rate_limit: b.rateLimit ?? 0,
      expires_at: b.expiresAt ?? '',
      allowed_ips: b.allowedIps ?? [],
      requests_per_hour: 0,
      burst_limit: 0,
      ip_address: request.ip,
    });
    return { ...presentKey(res.key!), key: res.secret };
  },
});

export const listApiKeys = defineEndpoint({
  method: 'GET',
  url: '/api/v1/api-keys',
  operationId: 'listApiKeys',
  tags: TAGS,
  summary: 'List API keys (never the secrets)',
  access: ADMIN,
  responses: {
    200: {
      description: 'Every key the caller may see (never the secrets)',
      schema: Type.Object({ apiKeys: list(ApiKey, 10_000) }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.keys.listKeys({ principal: principalOf(request) }, { idempotent: true });
    return { apiKeys: res.keys.map(presentKey) };
  },
});

export const getApiKey = defineEndpoint({
  method: 'GET',
  url: '/api/v1/api-keys/:key_id',
  operationId: 'getApiKey',
  tags: TAGS,
  summary: 'Get an API key',
  access: ADMIN,
  params: keyParams,
  responses: { 200: { description: 'The key', schema: ApiKey } },
  handler: async (request, { clients }) =>
    presentKey(
      await clients.keys.getKey(
        { principal: principalOf(request), key_id: request.params.key_id },
        { idempotent: true },
      ),
    ),
});

export const updateApiKey = defineEndpoint({
  method: 'PATCH',
  url: '/api/v1/api-keys/:key_id',
  operationId: 'updateApiKey',
  tags: TAGS,
  summary: 'Update name, permissions, rate limit or IP allowlist',
  access: ADMIN,
  params: keyParams,
  body: closed(
    {
      name: Type.Optional(Type.String({ maxLength: 100 })),
      permissions: Type.Optional(scopeList),
      rateLimit: Type.Optional(rateLimit),
      allowedIps: Type.Optional(ipList),
    },
    { minProperties: 1 },
  ),
  responses: { 200: { description: 'The updated key', schema: ApiKey } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const updated = presentKey(
      await clients.keys.updateKey({
        principal: principalOf(request),
        key_id: request.params.key_id,
        name: b.name,
        permissions: b.permissions ?? [],
        set_permissions: b.permissions !== undefined,
        rate_limit: b.rateLimit,
        allowed_ips: b.allowedIps ?? [],
        set_allowed_ips: b.allowedIps !== undefined,
        ip_address: request.ip,
      }),
    );
    request.server.keyVerifier.invalidate(request.params.key_id);
    return updated;
  },
});

export const revokeApiKey = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/api-keys/:key_id',
  operationId: 'revokeApiKey',
  tags: TAGS,
  summary: 'Revoke an API key (cannot be restored)',
  access: ADMIN,
  params: keyParams,
  responses: { 200: { description: 'The revoked key', schema: ApiKey } },
  handler: async (request, { clients }) => {
    const revoked = await clients.keys.revokeKey({
      principal: principalOf(request),
      key_id: request.params.key_id,
      ip_address: request.ip,
    });
    request.server.keyVerifier.invalidate(request.params.key_id);
    return presentKey(revoked);
  },
});

export const rotateApiKey = defineEndpoint({
  method: 'POST',
  url: '/api/v1/api-keys/:key_id/rotate',
  operationId: 'rotateApiKey',
  tags: TAGS,
  summary: 'Rotate: a new secret now, the old one valid for a grace period (default 24 h)',
  access: ADMIN,
  params: keyParams,
  body: nullable(
    closed({ gracePeriodSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604800 })) }),
  ),
  responses: { 200: { description: 'The key with its new secret', schema: ApiKey } },
  handler: async (request, { clients }) => {
    const res = await clients.keys.rotateKey({
      principal: principalOf(request),
      key_id: request.params.key_id,
      grace_period_seconds: request.body?.gracePeriodSeconds,
      ip_address: request.ip,
    });
    request.server.keyVerifier.invalidate(request.params.key_id);
    return { ...presentKey(res.key!), key: res.secret, previousKeyValidUntil: orNull(res.grace_until) };
  },
});
