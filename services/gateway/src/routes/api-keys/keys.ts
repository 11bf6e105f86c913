// /api/v1/api-keys: create, list, get, update, revoke, rotate, usage, share, audit logs.
// Managing keys needs `admin.*` (a session holds it).
import type { ApiKey } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance } from 'fastify';
import { idParam, orNull, principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['API keys'];
const ADMIN = { auth: 'either' as const, scope: 'admin.*' };

function presentKey(k: ApiKey) {
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

const ipList = { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 100 };
const scopeList = { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 50 };

export default async function apiKeys(app: FastifyInstance, { clients }: RouteDeps) {
  const keyId = idParam('key_id');

  app.post<{
    Body: {
      name: string;
      type: string;
      permissions?: string[];
      rateLimit?: number;
      expiresAt?: string;
      allowedIps?: string[];
    };
  }>(
    '/api/v1/api-keys',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Create an API key (the secret is returned once)',
        description:
          'A key never holds more authority than its creator had when it was made: a key acts for the ' +
          'user who made it. An `admin.*` key made by an enterprise owner or admin manages every key of the ' +
          'enterprise; one made by a member manages only the keys that member made or was shared.',
        body: {
          type: 'object',
          required: ['name', 'type', 'permissions'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 100 },
            type: { type: 'string', enum: ['production', 'test', 'restricted'] },
            permissions: scopeList,
            rateLimit: { type: 'integer', minimum: 1, maximum: 100000 },
            expiresAt: { type: 'string', maxLength: 40, description: 'ISO 8601; optional for every type' },
            allowedIps: ipList,
          },
        },
      },
    },
    async (request, reply) => {
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
      return reply.status(201).send({ ...presentKey(res.key!), key: res.secret });
    },
  );

  app.get(
    '/api/v1/api-keys',
    { config: ADMIN, schema: { tags: TAGS, summary: 'List API keys (never the secrets)' } },
    async (request) => {
      const res = await clients.keys.listKeys({ principal: principalOf(request) }, { idempotent: true });
      return { apiKeys: res.keys.map(presentKey) };
    },
  );

  app.get<{ Params: { key_id: string } }>(
    '/api/v1/api-keys/:key_id',
    { config: ADMIN, schema: { tags: TAGS, summary: 'Get an API key', params: keyId } },
    async (request) =>
      presentKey(
        await clients.keys.getKey(
          { principal: principalOf(request), key_id: request.params.key_id },
          { idempotent: true },
        ),
      ),
  );

  app.patch<{
    Params: { key_id: string };
    Body: { name?: string; permissions?: string[]; rateLimit?: number; allowedIps?: string[] };
  }>(
    '/api/v1/api-keys/:key_id',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Update name, permissions, rate limit or IP allowlist',
        params: keyId,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 100 },
            permissions: scopeList,
            rateLimit: { type: 'integer', minimum: 1, maximum: 100000 },
            allowedIps: ipList,
          },
        },
      },
    },
    async (request) => {
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
      app.keyVerifier.invalidate(request.params.key_id);
      return updated;
    },
  );

  app.delete<{ Params: { key_id: string } }>(
    '/api/v1/api-keys/:key_id',
    {
      config: ADMIN,
      schema: { tags: TAGS, summary: 'Revoke an API key (cannot be restored)', params: keyId },
    },
    async (request) => {
      const revoked = await clients.keys.revokeKey({
        principal: principalOf(request),
        key_id: request.params.key_id,
        ip_address: request.ip,
      });
      app.keyVerifier.invalidate(request.params.key_id);
      return presentKey(revoked);
    },
  );

  app.post<{ Params: { key_id: string }; Body: { gracePeriodSeconds?: number } | undefined }>(
    '/api/v1/api-keys/:key_id/rotate',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Rotate: a new secret now, the old one valid for a grace period (default 24 h)',
        params: keyId,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { gracePeriodSeconds: { type: 'integer', minimum: 0, maximum: 604800 } },
        },
      },
    },
    async (request) => {
      const res = await clients.keys.rotateKey({
        principal: principalOf(request),
        key_id: request.params.key_id,
        grace_period_seconds: request.body?.gracePeriodSeconds,
        ip_address: request.ip,
      });
      app.keyVerifier.invalidate(request.params.key_id);
      return { ...presentKey(res.key!), key: res.secret, previousKeyValidUntil: orNull(res.grace_until) };
    },
  );

  app.get<{ Params: { key_id: string }; Querystring: { period?: string } }>(
    '/api/v1/api-keys/:key_id/usage',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Usage statistics over 24h, 7d or 30d',
        params: keyId,
        querystring: {
          type: 'object',
          properties: { period: { type: 'string', enum: ['24h', '7d', '30d'], default: '7d' } },
        },
      },
    },
    async (request) => {
      const u = await clients.keys.getUsage(
        {
          principal: principalOf(request),
          key_id: request.params.key_id,
          period: request.query.period ?? '7d',
        },
        { idempotent: true },
      );
      return {
        keyId: u.key_id,
        period: u.period,
        totalRequests: u.total_requests,
        successfulRequests: u.successful_requests,
        failedRequests: u.failed_requests,
        averageLatency: u.average_latency,
        endpoints: u.endpoints.map((e) => ({
          path: e.path,
          method: e.method,
          requests: e.requests,
          avgLatency: e.avg_latency,
        })),
      };
    },
  );

  app.post<{ Params: { key_id: string }; Body: { userIds: string[]; permissions: string[] } }>(
    '/api/v1/api-keys/:key_id/share',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Share a key with users of the enterprise (read → Viewer, rotate → Admin)',
        params: keyId,
        body: {
          type: 'object',
          required: ['userIds', 'permissions'],
          additionalProperties: false,
          properties: {
            userIds: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', maxLength: 64 } },
            permissions: {
              type: 'array',
              minItems: 1,
              maxItems: 2,
              items: { type: 'string', enum: ['read', 'rotate'] },
            },
          },
        },
      },
    },
    async (request) => {
      const res = await clients.keys.shareKey({
        principal: principalOf(request),
        key_id: request.params.key_id,
        user_ids: request.body.userIds,
        permissions: request.body.permissions,
        ip_address: request.ip,
      });
      return {
        keyId: res.key_id,
        shares: res.shares.map((s) => ({
          userId: s.user_id,
          level: s.level,
          permissions: s.permissions,
          createdAt: s.created_at,
        })),
      };
    },
  );

  app.get<{ Params: { key_id: string }; Querystring: { limit?: number } }>(
    '/api/v1/api-keys/:key_id/audit-logs',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Audit log of the key, newest first',
        params: keyId,
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 } },
        },
      },
    },
    async (request) => {
      const res = await clients.keys.listAuditLogs(
        { principal: principalOf(request), key_id: request.params.key_id, limit: request.query.limit ?? 100 },
        { idempotent: true },
      );
      return {
        logs: res.logs.map((l) => ({
          timestamp: l.timestamp,
          action: l.action,
          ...(l.user_id ? { userId: l.user_id } : {}),
          ...(l.ip_address ? { ipAddress: l.ip_address } : {}),
          ...(l.endpoint ? { endpoint: l.endpoint } : {}),
          ...(l.status_code ? { statusCode: l.status_code } : {}),
        })),
      };
    },
  );
}
