// The integration's management: credentials by setup token, auto-provision, webhook
// re-registration, the integration itself and its settings (user session; a shop of
// another enterprise is 404).
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, list, str, Type, wrapped } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { ApiPagination, apiPageOf, apiPageQuery, presentApiPagination } from '../pagination.js';
import {
  Credentials,
  Integration,
  IntegrationAnswer,
  ok,
  presentIntegration,
  PUBLIC,
  SESSION,
  shopBody,
  shopSchema,
  TAGS,
} from './common.js';

export const platformGetCredentials = defineEndpoint({
  method: 'GET',
  url: '/api/platform/integration/credentials',
  operationId: 'platformGetCredentials',
  tags: TAGS,
  summary: 'The credentials an install produced, once, by its setup token',
  description:
    'The setup token comes with the install’s redirect to the app; it is single-use and expires after 10 ' +
    'minutes. Unknown, used or expired: 404.',
  access: PUBLIC,
  querystring: closed({ token: Type.String({ minLength: 1, maxLength: 128 }) }),
  responses: {
    200: {
      description: 'The credentials (shown once) and where to send the merchant back to',
      schema: Type.Object(
        { success: ok, credentials: Credentials, returnUrl: Type.String({ format: 'uri', maxLength: 2048 }) },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients, reply }) => {
    const c = await clients.platform.getCredentials({ token: request.query.token });
    reply.header('cache-control', 'no-store');
    return {
      success: true as const,
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
});

export const platformAutoProvision = defineEndpoint({
  method: 'POST',
  url: '/api/platform/integration/auto-provision',
  operationId: 'platformAutoProvision',
  tags: TAGS,
  summary: 'Provision an API key (bulk:mint, bulk:retry) and a webhook secret for the session’s enterprise',
  description: 'Each call makes a new key; its secret is shown once.',
  access: SESSION,
  responses: {
    200: {
      description: 'The new credentials',
      schema: Type.Object({ success: ok, credentials: Credentials }, { additionalProperties: false }),
    },
  },
  handler: async (request, { clients, reply }) => {
    const c = await clients.platform.autoProvision({ principal: principalOf(request) });
    reply.header('cache-control', 'no-store');
    return {
      success: true as const,
      credentials: {
        apiKeyId: c.api_key_id,
        apiKey: c.api_key,
        webhookSecret: c.webhook_secret,
        enterpriseId: c.enterprise_id,
      },
    };
  },
});

export const platformRegisterWebhooks = defineEndpoint({
  method: 'POST',
  url: '/api/platform/webhooks/register',
  operationId: 'platformRegisterWebhooks',
  tags: TAGS,
  summary: 'Register the inbound webhook topics again for the enterprise’s shop',
  description: 'Topics already subscribed to Hallmark’s address are kept. Another enterprise’s shop: 404.',
  access: SESSION,
  body: shopBody,
  responses: {
    200: {
      description: 'The topics now registered',
      schema: Type.Object(
        { success: ok, shop: str(255), topics: list(str(64), 16) },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.platform.registerWebhooks({
      principal: principalOf(request),
      shop: request.body.shop,
    });
    return { success: true as const, shop: res.shop, topics: res.topics };
  },
});

export const platformGetIntegration = defineEndpoint({
  method: 'GET',
  url: '/api/platform/integration',
  operationId: 'platformGetIntegration',
  tags: TAGS,
  summary: 'The enterprise’s shop integration: status, settings and the last order that failed',
  description:
    '`lastError` is the last paid order that could not become its certificate job (e.g. a product with no ' +
    'image anywhere), in the error envelope’s terms, with the order; null once a later order became its job. ' +
    'Each such order is also sent as the enterprise webhook `platform.order.failed`.',
  access: SESSION,
  querystring: shopBody,
  responses: { 200: { description: 'The integration', schema: IntegrationAnswer } },
  handler: async (request, { clients }) => {
    const i = await clients.platform.getIntegration(
      { principal: principalOf(request), shop: request.query.shop },
      { idempotent: true },
    );
    return { success: true as const, integration: presentIntegration(i) };
  },
});

export const platformListIntegrations = defineEndpoint({
  method: 'GET',
  url: '/api/platform/integrations',
  operationId: 'platformListIntegrations',
  tags: TAGS,
  summary: 'The enterprise’s shop integrations, newest install first',
  description:
    'Every shop the session’s enterprise installed the app in (active or uninstalled), each as ' +
    '`GET /api/platform/integration` answers it; never an access token or webhook secret. ' +
    '`{success, data:{integrations, pagination:{page, limit, totalPages, totalItems}}}`.',
  access: SESSION,
  querystring: closed(apiPageQuery),
  responses: {
    200: {
      description: 'A page of the integrations, newest install first',
      schema: wrapped(
        Type.Object(
          { integrations: list(Integration, 100), pagination: ApiPagination },
          { additionalProperties: false },
        ),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const page = apiPageOf(request.query);
    const res = await clients.platform.listIntegrations(
      { principal: principalOf(request), page },
      { idempotent: true },
    );
    return {
      success: true as const,
      data: {
        integrations: res.integrations.map(presentIntegration),
        pagination: presentApiPagination(res.pagination, page),
      },
    };
  },
});

export const platformUpdateSettings = defineEndpoint({
  method: 'PATCH',
  url: '/api/platform/integration/settings',
  operationId: 'platformUpdateSettings',
  tags: TAGS,
  summary: 'Set auto-fulfilment and the product template mapping of the enterprise’s shop',
  description:
    '`settings.autoFulfill` (default true) fulfils paid orders with the chain transaction. ' +
    '`settings.productTemplateMapping` (null clears) is keyed by product global id: `{productId, templateId, ' +
    'enabled, variantMappings {variantGid: templateId}, metadataMapping {sourcePath: targetField}}`; source ' +
    'paths start at `order.`, `lineItem.` or `product.`. A disabled entry is ignored.',
  access: SESSION,
  body: closed({
    shop: shopSchema,
    settings: closed(
      {
        autoFulfill: Type.Optional(bool),
        productTemplateMapping: Type.Optional(
          Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], maxProperties: 1000 }),
        ),
      },
      { minProperties: 1 },
    ),
  }),
  responses: { 200: { description: 'The integration with its settings', schema: IntegrationAnswer } },
  handler: async (request, { clients }) => {
    const s = request.body.settings;
    const i = await clients.platform.updateSettings({
      principal: principalOf(request),
      shop: request.body.shop,
      auto_fulfill: s.autoFulfill,
      product_template_mapping_json:
        s.productTemplateMapping === undefined ? undefined : JSON.stringify(s.productTemplateMapping),
    });
    return { success: true as const, integration: presentIntegration(i) };
  },
});
