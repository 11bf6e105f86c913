// The install: POST /api/platform/auth/authorize (user session → the platform's authorize
// URL) and GET /api/platform/auth/callback (the platform's signed redirect → the app, with a
// setup token). A refused callback answers an HTML page with the error's status and never
// redirects into the app.
import { HallmarkError } from '@hallmark/kit';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, Type } from '../../endpoint/schema.js';
import { html } from '../../pages/html.js';
import { pageShell, sendPage } from '../../pages/shell.js';
import { principalOf } from '../shared.js';
import { ok, PUBLIC, SESSION, shopSchema, TAGS } from './common.js';

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

const queryValue = Type.String({ maxLength: 2048 });
const page = { type: 'string', maxLength: 65_536 } as const;

export const platformAuthorize = defineEndpoint({
  method: 'POST',
  url: '/api/platform/auth/authorize',
  operationId: 'platformAuthorize',
  tags: TAGS,
  summary: 'Start installing the app on a shop',
  description:
    'Answers the platform’s authorize URL asking for `read_orders,write_fulfillments,read_products`, with a ' +
    'fresh single-use `state` bound to the session’s user and enterprise (valid 10 minutes). Optional ' +
    '`apiKeyId` + `apiKey` and `webhookSecret` are used instead of provisioning new ones. A shop installed by ' +
    'another enterprise answers 404.',
  access: SESSION,
  body: closed({
    shop: shopSchema,
    apiKeyId: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    webhookSecret: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', maxLength: 64 })),
  }),
  responses: {
    200: {
      description: 'The URL to send the merchant to',
      schema: Type.Object(
        { success: ok, authUrl: Type.String({ format: 'uri', maxLength: 2048 }) },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients }) => {
    const b = request.body;
    const res = await clients.platform.authorize({
      principal: principalOf(request),
      shop: b.shop,
      api_key_id: b.apiKeyId,
      api_key: b.apiKey,
      webhook_secret: b.webhookSecret,
    });
    return { success: true as const, authUrl: res.auth_url };
  },
});

export const platformAuthCallback = defineEndpoint({
  method: 'GET',
  url: '/api/platform/auth/callback',
  operationId: 'platformAuthCallback',
  tags: TAGS,
  summary: 'The platform’s redirect after the merchant approved the install',
  description:
    'Verifies the query’s HMAC (hex HMAC-SHA256 of the sorted other parameters with the app secret, ' +
    'compared in constant time) and its timestamp (5 minutes), consumes the state, exchanges the code, stores ' +
    'the access token encrypted, provisions the enterprise’s API key (`bulk:mint`, `bulk:retry`) and a ' +
    'webhook secret unless supplied, registers `orders/create`, `orders/paid`, `orders/cancelled` and ' +
    '`app/uninstalled`, and redirects to the app with a single-use setup `token`. A bad signature, stale ' +
    'timestamp or unknown state answers an HTML page (401) and stores nothing.',
  access: PUBLIC,
  querystring: Type.Object(
    {
      code: queryValue,
      hmac: queryValue,
      shop: shopSchema,
      state: queryValue,
      timestamp: queryValue,
      host: Type.Optional(queryValue),
    },
    { maxProperties: 20, additionalProperties: queryValue },
  ),
  responses: {
    302: { description: 'Redirect to HALLMARK_PLATFORM_APP_URL with `token` and `shop`' },
    '4XX': {
      description: 'HTML page: the install was refused (bad signature, stale timestamp, unknown state)',
      contentType: 'text/html',
      schema: Type.Unsafe<string>(page),
    },
    '5XX': {
      description: 'HTML page: the platform failed the code exchange',
      contentType: 'text/html',
      schema: Type.Unsafe<string>(page),
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
  handler: async (request, { clients, reply }) => {
    const res = await clients.platform.callback({ query: request.query as Record<string, string> });
    return reply.header('cache-control', 'no-store').redirect(res.redirect_url, 302);
  },
});
