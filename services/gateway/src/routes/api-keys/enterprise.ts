// POST /api/enterprise/api-keys: the session-token form that issues keys with the
// unversioned scopes (`bulk:mint`, `bulk:retry`, `voucher:create`, `pos:voucher`).
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';

export default async function enterpriseApiKeys(app: FastifyInstance, { clients }: RouteDeps) {
  app.post<{
    Body: { name: string; scopes: string[]; rateLimit?: { requestsPerHour?: number; burstLimit?: number } };
  }>(
    '/api/enterprise/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['Enterprise'],
        summary: 'Create an enterprise API key with bulk scopes (session token)',
        body: {
          type: 'object',
          required: ['name', 'scopes'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 100 },
            scopes: {
              type: 'array',
              minItems: 1,
              maxItems: 4,
              items: { type: 'string', enum: ['bulk:mint', 'bulk:retry', 'voucher:create', 'pos:voucher'] },
            },
            rateLimit: {
              type: 'object',
              additionalProperties: false,
              properties: {
                requestsPerHour: { type: 'integer', minimum: 1, maximum: 1_000_000 },
                burstLimit: { type: 'integer', minimum: 1, maximum: 10_000 },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const res = await clients.keys.createKey({
        principal: principalOf(request),
        name: b.name,
        type: 'enterprise',
        permissions: b.scopes,
        rate_limit: 0,
        expires_at: '',
        allowed_ips: [],
        requests_per_hour: b.rateLimit?.requestsPerHour ?? 0,
        burst_limit: b.rateLimit?.burstLimit ?? 0,
        ip_address: request.ip,
      });
      const k = res.key!;
      return reply.status(201).send({
        success: true,
        apiKey: {
          key: res.secret,
          keyPrefix: k.key_prefix,
          scopes: k.permissions,
          id: k.id,
          createdAt: k.created_at,
        },
      });
    },
  );
}
