// The integration's management: credentials by setup token, auto-provision, webhook
// re-registration, the integration itself and its settings (user session; a shop of
// another enterprise is 404).
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';
import {
  credentialsSchema,
  ERRORS,
  integrationAnswers,
  PUBLIC,
  SESSION,
  shopSchema,
  TAGS,
} from './common.js';
import type { Integration } from '@hallmark/proto/platform/v1/platform';

function presentIntegration(i: Integration) {
  return {
    shop: i.shop,
    enterpriseId: i.enterprise_id,
    apiKeyId: i.api_key_id || null,
    status: i.status,
    settings: {
      autoFulfill: i.auto_fulfill,
      productTemplateMapping: i.product_template_mapping_json
        ? JSON.parse(i.product_template_mapping_json)
        : null,
    },
    installedAt: i.installed_at,
    updatedAt: i.updated_at,
    lastError: i.last_error
      ? {
          code: i.last_error.code,
          message: i.last_error.message,
          param: i.last_error.param || null,
          orderId: i.last_error.order_id,
          orderName: i.last_error.order_name || null,
          occurredAt: i.last_error.occurred_at,
        }
      : null,
  };
}

const shopBody = {
  type: 'object',
  required: ['shop'],
  additionalProperties: false,
  properties: { shop: shopSchema },
} as const;

export default async function integrationRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  app.get<{ Querystring: { token: string } }>(
    '/api/platform/integration/credentials',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'The credentials an install produced, once, by its setup token',
        description:
          'The setup token comes with the install’s redirect to the app; it is single-use and expires after 10 ' +
          'minutes. Unknown, used or expired: 404.',
        querystring: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 128 } },
        },
        response: {
          200: {
            description: 'The credentials (shown once) and where to send the merchant back to',
            type: 'object',
            required: ['success', 'credentials', 'returnUrl'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              credentials: credentialsSchema,
              returnUrl: { type: 'string', format: 'uri', maxLength: 2048 },
            },
          },
          400: ERRORS[400],
          404: ERRORS[404],
          429: ERRORS[429],
        },
      },
    },
    async (request, reply) => {
      const c = await clients.platform.getCredentials({ token: request.query.token });
      reply.header('cache-control', 'no-store');
      return {
        success: true,
        credentials: {
          enterpriseId: c.enterprise_id,
          apiKeyId: c.api_key_id,
          apiKey: c.api_key,
          webhookSecret: c.webhook_secret,
          shop: c.shop,
        },
        returnUrl: c.return_url,
      };
    },
  );

  app.post(
    '/api/platform/integration/auto-provision',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary:
          'Provision an API key (bulk:mint, bulk:retry) and a webhook secret for the session’s enterprise',
        description: 'Each call makes a new key; its secret is shown once.',
        response: {
          200: {
            description: 'The new credentials',
            type: 'object',
            required: ['success', 'credentials'],
            additionalProperties: false,
            properties: { success: { type: 'boolean', const: true }, credentials: credentialsSchema },
          },
          401: ERRORS[401],
          403: ERRORS[403],
          429: ERRORS[429],
        },
      },
    },
    async (request, reply) => {
      const c = await clients.platform.autoProvision({ principal: principalOf(request) });
      reply.header('cache-control', 'no-store');
      return {
        success: true,
        credentials: {
          apiKeyId: c.api_key_id,
          apiKey: c.api_key,
          webhookSecret: c.webhook_secret,
          enterpriseId: c.enterprise_id,
        },
      };
    },
  );

  app.post<{ Body: { shop: string } }>(
    '/api/platform/webhooks/register',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Register the inbound webhook topics again for the enterprise’s shop',
        description:
          'Topics already subscribed to Hallmark’s address are kept. Another enterprise’s shop: 404.',
        body: shopBody,
        response: {
          200: {
            description: 'The topics now registered',
            type: 'object',
            required: ['success', 'shop', 'topics'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              shop: { type: 'string', maxLength: 255 },
              topics: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 64 } },
            },
          },
          ...ERRORS,
        },
      },
    },
    async (request) => {
      const res = await clients.platform.registerWebhooks({
        principal: principalOf(request),
        shop: request.body.shop,
      });
      return { success: true, shop: res.shop, topics: res.topics };
    },
  );

  app.get<{ Querystring: { shop: string } }>(
    '/api/platform/integration',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'The enterprise’s shop integration: status, settings and the last order that failed',
        description:
          '`lastError` is the last paid order that could not become its certificate job (e.g. a product with no ' +
          'image anywhere), in the error envelope’s terms, with the order; null once a later order became its job. ' +
          'Each such order is also sent as the enterprise webhook `platform.order.failed`.',
        querystring: shopBody,
        response: integrationAnswers('The integration'),
      },
    },
    async (request) => {
      const i = await clients.platform.getIntegration(
        { principal: principalOf(request), shop: request.query.shop },
        { idempotent: true },
      );
      return { success: true, integration: presentIntegration(i) };
    },
  );

  app.patch<{
    Body: { shop: string; settings: { autoFulfill?: boolean; productTemplateMapping?: unknown } };
  }>(
    '/api/platform/integration/settings',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Set auto-fulfilment and the product template mapping of the enterprise’s shop',
        description:
          '`settings.autoFulfill` (default true) fulfils paid orders with the chain transaction. ' +
          '`settings.productTemplateMapping` (null clears) is keyed by product global id: `{productId, templateId, ' +
          'enabled, variantMappings {variantGid: templateId}, metadataMapping {sourcePath: targetField}}`; source ' +
          'paths start at `order.`, `lineItem.` or `product.`. A disabled entry is ignored.',
        body: {
          type: 'object',
          required: ['shop', 'settings'],
          additionalProperties: false,
          properties: {
            shop: shopSchema,
            settings: {
              type: 'object',
              minProperties: 1,
              additionalProperties: false,
              properties: {
                autoFulfill: { type: 'boolean' },
                productTemplateMapping: { type: ['object', 'null'], maxProperties: 1000 },
              },
            },
          },
        },
        response: integrationAnswers('The integration with its settings'),
      },
    },
    async (request) => {
      const s = request.body.settings;
      const i = await clients.platform.updateSettings({
        principal: principalOf(request),
        shop: request.body.shop,
        auto_fulfill: s.autoFulfill,
        product_template_mapping_json:
          s.productTemplateMapping === undefined ? undefined : JSON.stringify(s.productTemplateMapping),
      });
      return { success: true, integration: presentIntegration(i) };
    },
  );
}
