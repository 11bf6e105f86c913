// The install: POST /api/platform/auth/authorize (user session → the platform's authorize
// URL) and GET /api/platform/auth/callback (the platform's signed redirect → the app, with a
// setup token). A refused callback answers an HTML page with the error's status and never
// redirects into the app.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import { html } from '../../pages/html.js';
import { pageShell, sendPage } from '../../pages/shell.js';
import { principalOf, type RouteDeps } from '../shared.js';
import { ERRORS, PUBLIC, SESSION, shopSchema, TAGS } from './common.js';

function refusedPage(message: string): string {
  return pageShell({
    title: 'Install not completed',
    heading: 'Hallmark · Platform install',
    footer: 'Start the install again from your Hallmark account.',
    body: html`<div class="card">
      <h1>The install was not completed</h1>
      <p>${message}</p>
    </div>`,
  });
}

const queryValue = { type: 'string', maxLength: 2048 } as const;

export default async function authRoutes(app: FastifyInstance, { clients }: RouteDeps) {
  app.post<{ Body: { shop: string; apiKeyId?: string; apiKey?: string; webhookSecret?: string } }>(
    '/api/platform/auth/authorize',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Start installing the app on a shop',
        description:
          'Answers the platform’s authorize URL asking for `read_orders,write_fulfillments,read_products`, with a ' +
          'fresh single-use `state` bound to the session’s user and enterprise (valid 10 minutes). Optional ' +
          '`apiKeyId` + `apiKey` and `webhookSecret` are used instead of provisioning new ones. A shop installed by ' +
          'another enterprise answers 404.',
        body: {
          type: 'object',
          required: ['shop'],
          additionalProperties: false,
          properties: {
            shop: shopSchema,
            apiKeyId: { type: 'string', minLength: 1, maxLength: 80 },
            apiKey: { type: 'string', minLength: 1, maxLength: 200 },
            webhookSecret: { type: 'string', pattern: '^[0-9a-f]{64}$', maxLength: 64 },
          },
        },
        response: {
          200: {
            description: 'The URL to send the merchant to',
            type: 'object',
            required: ['success', 'authUrl'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              authUrl: { type: 'string', format: 'uri', maxLength: 2048 },
            },
          },
          400: ERRORS[400],
          401: ERRORS[401],
          404: ERRORS[404],
          429: ERRORS[429],
        },
      },
    },
    async (request) => {
      const b = request.body;
      const res = await clients.platform.authorize({
        principal: principalOf(request),
        shop: b.shop,
        api_key_id: b.apiKeyId,
        api_key: b.apiKey,
        webhook_secret: b.webhookSecret,
      });
      return { success: true, authUrl: res.auth_url };
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    '/api/platform/auth/callback',
    {
      config: PUBLIC,
      schema: {
        tags: TAGS,
        summary: 'The platform’s redirect after the merchant approved the install',
        description:
          'Verifies the query’s HMAC (hex HMAC-SHA256 of the sorted other parameters with the app secret, ' +
          'compared in constant time) and its timestamp (5 minutes), consumes the state, exchanges the code, stores ' +
          'the access token encrypted, provisions the enterprise’s API key (`bulk:mint`, `bulk:retry`) and a ' +
          'webhook secret unless supplied, registers `orders/create`, `orders/paid`, `orders/cancelled` and ' +
          '`app/uninstalled`, and redirects to the app with a single-use setup `token`. A bad signature, stale ' +
          'timestamp or unknown state answers an HTML page (401) and stores nothing.',
        querystring: {
          type: 'object',
          required: ['code', 'hmac', 'shop', 'state', 'timestamp'],
          maxProperties: 20,
          additionalProperties: queryValue,
          properties: {
            code: queryValue,
            hmac: queryValue,
            shop: shopSchema,
            state: queryValue,
            timestamp: queryValue,
            host: queryValue,
          },
        },
        response: {
          302: { description: 'Redirect to HALLMARK_PLATFORM_APP_URL with `token` and `shop`', type: 'null' },
          '4xx': {
            description: 'HTML page: the install was refused (bad signature, stale timestamp, unknown state)',
            content: { 'text/html': { schema: { type: 'string', maxLength: 65_536 } } },
          },
          '5xx': {
            description: 'HTML page: the platform failed the code exchange',
            content: { 'text/html': { schema: { type: 'string', maxLength: 65_536 } } },
          },
        },
      },
      errorHandler(error, request, reply) {
        // The merchant's browser lands here: a page, never JSON, never a redirect into the app.
        const e = error instanceof HallmarkError ? error : null;
        const status = e ? e.httpStatus : (error as { statusCode?: number }).statusCode === 400 ? 400 : 500;
        if (status >= 500) request.log.error({ err: error }, 'platform callback failed');
        const message =
          status === 401
            ? 'The request did not come from the platform, has expired, or was already used.'
            : status >= 500
              ? 'The platform did not complete the install. Please try again.'
              : 'The install request is not valid.';
        return sendPage(reply, status, refusedPage(message));
      },
    },
    async (request, reply) => {
      const res = await clients.platform.callback({ query: request.query });
      return reply.header('cache-control', 'no-store').redirect(res.redirect_url, 302);
    },
  );
}
