// /api/v1/api-keys/:key_id/{usage,share,audit-logs}: what a key did and who shares it.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, int, list, oneOf, str, time, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { ADMIN, TAGS } from './api-key.js';
import { keyParams } from './keys.js';

const latency = (description?: string) =>
  Type.Number({ ...(description ? { description } : {}), minimum: 0, maximum: 1e9 });

export const getApiKeyUsage = defineEndpoint({
  method: 'GET',
  url: '/api/v1/api-keys/:key_id/usage',
  operationId: 'getApiKeyUsage',
  tags: TAGS,
  summary: 'Usage statistics over 24h, 7d or 30d',
  access: ADMIN,
  params: keyParams,
  querystring: Type.Object({
    period: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['24h', '7d', '30d'], default: '7d' })),
  }),
  responses: {
    200: {
      description: 'Requests over the period, in total and per endpoint',
      schema: Type.Object({
        keyId: str(64),
        period: oneOf(['24h', '7d', '30d']),
        totalRequests: int(),
        successfulRequests: int(),
        failedRequests: int(),
        averageLatency: latency('Milliseconds'),
        endpoints: list(
          Type.Object({ path: str(300), method: str(10), requests: int(), avgLatency: latency() }),
          1000,
        ),
      }),
    },
  },
  handler: async (request, { clients }) => {
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
});

export const shareApiKey = defineEndpoint({
  method: 'POST',
  url: '/api/v1/api-keys/:key_id/share',
  operationId: 'shareApiKey',
  tags: TAGS,
  summary: 'Share a key with users of the enterprise (read → Viewer, rotate → Admin)',
  access: ADMIN,
  params: keyParams,
  body: closed({
    userIds: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100 }),
    permissions: Type.Array(oneOf(['read', 'rotate']), { minItems: 1, maxItems: 2 }),
  }),
  responses: {
    200: {
      description: 'Every share of the key; users are named by their session `sub`',
      schema: Type.Object({
        keyId: str(64),
        shares: list(
          Type.Object({
            userId: str(255, 'The user’s session `sub`'),
            level: str(16),
            permissions: Type.Optional(list(str(16), 2)),
            createdAt: Type.Optional(time),
          }),
          1000,
        ),
      }),
    },
  },
  handler: async (request, { clients }) => {
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
});

export const listApiKeyAuditLogs = defineEndpoint({
  method: 'GET',
  url: '/api/v1/api-keys/:key_id/audit-logs',
  operationId: 'listApiKeyAuditLogs',
  tags: TAGS,
  summary: 'Audit log of the key, newest first',
  access: ADMIN,
  params: keyParams,
  querystring: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  }),
  responses: {
    200: {
      description: 'Newest first; `userId` is the acting user’s session `sub` (or the API key id)',
      schema: Type.Object({
        logs: list(
          Type.Object({
            timestamp: time,
            action: str(32),
            userId: Type.Optional(str(255)),
            ipAddress: Type.Optional(str(64)),
            endpoint: Type.Optional(str(300)),
            statusCode: Type.Optional(int()),
          }),
          100,
        ),
      }),
    },
  },
  handler: async (request, { clients }) => {
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
});
