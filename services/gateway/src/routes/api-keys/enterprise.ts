// POST /api/enterprise/api-keys: the session-token form that issues keys with the
// unversioned scopes (`bulk:mint`, `bulk:retry`, `voucher:create`, `pos:voucher`).
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, list, oneOf, str, time, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';

export const createEnterpriseApiKey = defineEndpoint({
  method: 'POST',
  url: '/api/enterprise/api-keys',
  operationId: 'createEnterpriseApiKey',
  tags: ['Enterprise'],
  summary: 'Create an enterprise API key with bulk scopes (session token)',
  access: { auth: 'session' },
  body: closed({
    name: Type.String({ maxLength: 100 }),
    scopes: Type.Array(oneOf(['bulk:mint', 'bulk:retry', 'voucher:create', 'pos:voucher']), {
      minItems: 1,
      maxItems: 4,
    }),
    rateLimit: Type.Optional(
      closed({
        requestsPerHour: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        burstLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
      }),
    ),
  }),
  responses: {
    201: {
      description: 'The enterprise key, its secret shown once',
      schema: Type.Object({
        success: Type.Literal(true),
        apiKey: Type.Object({
          key: str(64),
          keyPrefix: str(32),
          scopes: list(str(32), 4),
          id: str(64),
          createdAt: time,
        }),
      }),
    },
  },
  handler: async (request, { clients }) => {
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
    return {
      success: true as const,
      apiKey: {
        key: res.secret,
        keyPrefix: k.key_prefix,
        scopes: k.permissions,
        id: k.id,
        createdAt: k.created_at,
      },
    };
  },
});
