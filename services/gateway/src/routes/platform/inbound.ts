// POST /api/platform/webhooks: the platform's order and app webhooks. An encapsulated plugin:
// the body stays the raw bytes the platform signed (its HMAC is over exactly them), so no
// other route's body handling changes. Answered as soon as the event is recorded (the
// platform's timeout is 5 s); a wrong or missing X-Platform-Hmac-Sha256 answers 401.
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints } from '../../endpoint/define.js';
import { bool, str, Type } from '../../endpoint/schema.js';
import type { RouteDeps } from '../shared.js';
import { ok, TAGS } from './common.js';

/** The platform's largest order bodies stay well under this. */
const BODY_LIMIT = 2 * 1024 * 1024;

export const platformReceiveWebhook = defineEndpoint({
  method: 'POST',
  url: '/api/platform/webhooks',
  operationId: 'platformReceiveWebhook',
  tags: TAGS,
  summary: 'Receive an order or app webhook from the platform',
  description:
    'Topics `orders/create` (recorded), `orders/paid` (certificate vouchers are issued by a bulk job, then the ' +
    'order is fulfilled when `settings.autoFulfill` is on; emits `payment.succeeded`), `orders/cancelled` ' +
    '(the order’s unclaimed certificate vouchers are voided), `app/uninstalled` (integration disabled, token wiped, provisioned key revoked). The raw body ' +
    'is verified against `X-Platform-Hmac-Sha256` (base64 HMAC-SHA256 with the app secret). The headers are not ' +
    'signed, so the body must be bound to `X-Platform-Shop-Domain`: an `app/uninstalled` body names the shop ' +
    '(`myshopify_domain`), an order names it in `order_status_url` when that is on a store domain, and an order ' +
    'already heard from another shop is refused; `X-Platform-Triggered-At` must be within the last 6 hours ' +
    '(5 minutes of clock skew ahead). Any of these failing answers 401 and does nothing. `app/uninstalled` acts ' +
    'only once the platform refuses the shop’s access token (while it still works the delivery is a replay: ' +
    'acknowledged, nothing done). A duplicate (same ' +
    '`X-Platform-Webhook-Id`, or the same topic and order) is acknowledged with `duplicate: true` and does nothing.',
  // No credential (the body's HMAC is the authentication); its own per-address window.
  access: { auth: 'public', rateGroup: 'platform_webhook' },
  bodyLimit: BODY_LIMIT,
  // No header is required by the schema: the HMAC is checked first, so a request without
  // one is 401 (spec › Authentication 12), not a 400 about headers.
  headers: Type.Object({
    'x-platform-hmac-sha256': Type.Optional(str(128)),
    'x-platform-shop-domain': Type.Optional(str(255)),
    'x-platform-topic': Type.Optional(str(64)),
    'x-platform-api-version': Type.Optional(str(16)),
    'x-platform-webhook-id': Type.Optional(str(128)),
    'x-platform-triggered-at': Type.Optional(str(64)),
  }),
  responses: {
    200: {
      description: 'Acknowledged',
      schema: Type.Object({ success: ok, duplicate: bool }, { additionalProperties: false }),
    },
  },
  handler: async (request, { clients }) => {
    const h = request.headers;
    const res = await clients.platform.receiveWebhook({
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      hmac: String(h['x-platform-hmac-sha256'] ?? ''),
      shop_domain: String(h['x-platform-shop-domain'] ?? ''),
      topic: String(h['x-platform-topic'] ?? ''),
      api_version: String(h['x-platform-api-version'] ?? ''),
      webhook_id: String(h['x-platform-webhook-id'] ?? ''),
      triggered_at: String(h['x-platform-triggered-at'] ?? ''),
    });
    return { success: true as const, duplicate: res.duplicate };
  },
});

/** An encapsulated plugin: the raw body parser applies to this endpoint only. */
export default async function inboundWebhooks(app: FastifyInstance, deps: RouteDeps) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  registerEndpoints(app, deps, [platformReceiveWebhook]);
}
