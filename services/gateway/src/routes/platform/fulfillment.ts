// POST /api/platform/fulfillment/retry: fulfil again an order whose fulfilment failed.
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';
import { ERRORS, SESSION, shopSchema, TAGS } from './common.js';

export default async function fulfillmentRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  app.post<{ Body: { shop: string; orderId: string } }>(
    '/api/platform/fulfillment/retry',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Retry the fulfilment of an order of the enterprise’s shop',
        description:
          'Up to 3 attempts (GraphQL, then REST), backoff 1 s, 2 s. An order already fulfilled answers its ' +
          'fulfilment unchanged; an order without minted certificates: 422; another enterprise’s shop: 404. Safe to repeat.',
        body: {
          type: 'object',
          required: ['shop', 'orderId'],
          additionalProperties: false,
          properties: {
            shop: shopSchema,
            orderId: {
              type: 'string',
              minLength: 1,
              maxLength: 80,
              description: 'gid://shopify/Order/<n>, the numeric id, or the order name',
            },
          },
        },
        response: {
          200: {
            description: 'The fulfilment after the retry',
            type: 'object',
            required: ['success', 'fulfillment'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              fulfillment: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  shop: { type: 'string' },
                  orderId: { type: 'string' },
                  status: { type: 'string', enum: ['pending', 'fulfilled', 'failed', 'skipped'] },
                  attempts: { type: 'integer' },
                  via: { type: ['string', 'null'] },
                  trackingNumber: { type: ['string', 'null'] },
                  trackingUrl: { type: ['string', 'null'] },
                  error: { type: ['string', 'null'] },
                },
              },
            },
          },
          400: ERRORS[400],
          401: ERRORS[401],
          404: ERRORS[404],
          422: ERRORS[400],
          429: ERRORS[429],
        },
      },
    },
    async (request) => {
      const f = await clients.platform.retryFulfillment(
        { principal: principalOf(request), shop: request.body.shop, order_id: request.body.orderId },
        { deadlineMs: 60_000 },
      );
      return {
        success: true,
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
  );
}
