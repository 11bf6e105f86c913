// POST /api/platform/fulfillment/retry: fulfil again an order whose fulfilment failed.
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, nullable, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { ok, SESSION, shopSchema, TAGS } from './common.js';

export const platformRetryFulfillment = defineEndpoint({
  method: 'POST',
  url: '/api/platform/fulfillment/retry',
  operationId: 'platformRetryFulfillment',
  tags: TAGS,
  summary: 'Retry the fulfilment of an order of the enterprise’s shop',
  description:
    'Up to 3 attempts (GraphQL, then REST), backoff 1 s, 2 s. An order already fulfilled answers its ' +
    'fulfilment unchanged; an order without minted certificates: 422; another enterprise’s shop: 404. Safe to repeat.',
  access: SESSION,
  body: closed({
    shop: shopSchema,
    orderId: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'gid://shopify/Order/<n>, the numeric id, or the order name',
    }),
  }),
  responses: {
    200: {
      description: 'The fulfilment after the retry',
      schema: Type.Object(
        {
          success: ok,
          fulfillment: Type.Object(
            {
              shop: Type.Optional(str(255)),
              orderId: Type.Optional(str(128)),
              status: Type.Optional(
                Type.Unsafe<string>({ type: 'string', enum: ['pending', 'fulfilled', 'failed', 'skipped'] }),
              ),
              attempts: Type.Optional(Type.Integer({ format: 'int32', minimum: 0, maximum: 100 })),
              via: Type.Optional(
                Type.Unsafe<string | null>({
                  type: ['string', 'null'],
                  enum: ['graphql', 'rest', 'already', null],
                }),
              ),
              trackingNumber: Type.Optional(nullable(str(128))),
              trackingUrl: Type.Optional(nullable(str(2048))),
              error: Type.Optional(nullable(str(4096))),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients }) => {
    const f = await clients.platform.retryFulfillment(
      { principal: principalOf(request), shop: request.body.shop, order_id: request.body.orderId },
      { deadlineMs: 60_000 },
    );
    return {
      success: true as const,
      fulfillment: {
        shop: f.shop,
        orderId: f.order_id,
        status: f.status,
        attempts: f.attempts,
        via: f.via ?? null,
        trackingNumber: f.tracking_number ?? null,
        trackingUrl: f.tracking_url ?? null,
        error: f.error ?? null,
      },
    };
  },
});
