// /api/enterprise/webhooks: enterprise webhook subscriptions (spec › Enterprise webhook
// subscription), managed with a user session. Bodies follow the unversioned surface
// (`success`); the secret is shown once, in the create response.
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, idParams, list, str, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import {
  Delivery,
  DeliveriesQuery,
  deliveryParams,
  DeliveryPage,
  pageOf,
  presentDelivery,
  presentDeliveryPage,
} from './delivery.js';
import { presentSubscription, Subscription } from './subscription.js';
import { sendTestEvent, testEventRequest } from './test-event.js';

const TAGS = ['Enterprise'];
const SESSION: Access = { auth: 'session' };
const webhookParams = idParams('webhook_id');
const ok = Type.Literal(true);
const One = Type.Object({ success: ok, webhook: Subscription });

export const createEnterpriseWebhook = defineEndpoint({
  method: 'POST',
  url: '/api/enterprise/webhooks',
  operationId: 'createEnterpriseWebhook',
  tags: TAGS,
  summary: 'Subscribe to enterprise events (session token)',
  access: SESSION,
  body: closed({
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS only' }),
    events: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: 10,
      description:
        'bulk.job.completed, bulk.job.failed, voucher.created, voucher.minted, platform.order.failed',
    }),
    secret: Type.Optional(
      Type.String({ maxLength: 200, description: '64 hex characters; generated when absent' }),
    ),
    enabled: Type.Optional(bool),
  }),
  responses: { 201: { description: 'The subscription, its secret shown once', schema: One } },
  handler: async (request, { clients }) => {
    const b = request.body;
    const s = await clients.webhooks.createSubscription({
      principal: principalOf(request),
      url: b.url,
      events: b.events,
      secret: b.secret,
      enabled: b.enabled,
    });
    return { success: true as const, webhook: presentSubscription(s) };
  },
});

export const listEnterpriseWebhooks = defineEndpoint({
  method: 'GET',
  url: '/api/enterprise/webhooks',
  operationId: 'listEnterpriseWebhooks',
  tags: TAGS,
  summary: 'List enterprise webhook subscriptions',
  access: SESSION,
  responses: {
    200: {
      description: 'Every subscription of the enterprise (never the secrets)',
      schema: Type.Object({ success: ok, webhooks: list(Subscription, 1000) }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.webhooks.listSubscriptions(
      { principal: principalOf(request) },
      { idempotent: true },
    );
    return { success: true as const, webhooks: res.subscriptions.map(presentSubscription) };
  },
});

export const getEnterpriseWebhook = defineEndpoint({
  method: 'GET',
  url: '/api/enterprise/webhooks/:webhook_id',
  operationId: 'getEnterpriseWebhook',
  tags: TAGS,
  summary: 'Get an enterprise webhook subscription',
  access: SESSION,
  params: webhookParams,
  responses: { 200: { description: 'The subscription', schema: One } },
  handler: async (request, { clients }) => {
    const s = await clients.webhooks.getSubscription(
      { principal: principalOf(request), subscription_id: request.params.webhook_id },
      { idempotent: true },
    );
    return { success: true as const, webhook: presentSubscription(s) };
  },
});

export const deleteEnterpriseWebhook = defineEndpoint({
  method: 'DELETE',
  url: '/api/enterprise/webhooks/:webhook_id',
  operationId: 'deleteEnterpriseWebhook',
  tags: TAGS,
  summary: 'Delete an enterprise webhook subscription',
  access: SESSION,
  params: webhookParams,
  responses: {
    200: { description: 'Deleted', schema: Type.Object({ success: ok, id: str(64), deleted: bool }) },
  },
  handler: async (request, { clients }) => {
    const res = await clients.webhooks.deleteSubscription({
      principal: principalOf(request),
      subscription_id: request.params.webhook_id,
    });
    return { success: true as const, id: res.id, deleted: res.deleted };
  },
});

export const updateEnterpriseWebhook = defineEndpoint({
  method: 'PATCH',
  url: '/api/enterprise/webhooks/:webhook_id',
  operationId: 'updateEnterpriseWebhook',
  tags: TAGS,
  summary: 'Enable or disable a subscription (enabling clears failing/disabled)',
  access: SESSION,
  params: webhookParams,
  body: closed({ enabled: bool }),
  responses: { 200: { description: 'The subscription', schema: One } },
  handler: async (request, { clients }) => {
    const s = await clients.webhooks.updateSubscription({
      principal: principalOf(request),
      subscription_id: request.params.webhook_id,
      enabled: request.body.enabled,
    });
    return { success: true as const, webhook: presentSubscription(s) };
  },
});

export const listEnterpriseWebhookDeliveries = defineEndpoint({
  method: 'GET',
  url: '/api/enterprise/webhooks/:webhook_id/deliveries',
  operationId: 'listEnterpriseWebhookDeliveries',
  tags: TAGS,
  summary: 'Deliveries of a subscription with every attempt (status code, latency, error), newest first',
  access: SESSION,
  params: webhookParams,
  querystring: DeliveriesQuery,
  responses: {
    200: {
      description: 'A page of the subscription’s deliveries with their attempts, newest first',
      schema: Type.Object({ success: ok, ...DeliveryPage }),
    },
  },
  handler: async (request, { clients }) => ({
    success: true as const,
    ...presentDeliveryPage(
      await clients.webhooks.listSubscriptionDeliveries(
        {
          principal: principalOf(request),
          subscription_id: request.params.webhook_id,
          ...pageOf(request.query),
        },
        { idempotent: true },
      ),
    ),
  }),
});

export const retryEnterpriseWebhookDelivery = defineEndpoint({
  method: 'POST',
  url: '/api/enterprise/webhooks/:webhook_id/deliveries/:delivery_id/retry',
  operationId: 'retryEnterpriseWebhookDelivery',
  tags: TAGS,
  summary: 'Attempt a delivery of the subscription now (a replay for a finished one: same event id)',
  description:
    'A failed or succeeded delivery gets one more attempt, with no automatic retries after it; a pending one ' +
    'has its next attempt moved to now. Signed again at the attempt (X-Webhook-*, the subscription’s ' +
    'secret). A delivery of another subscription: 404; an attempt in flight: 409.',
  access: SESSION,
  params: deliveryParams,
  responses: {
    202: {
      description: 'The delivery, queued again',
      schema: Type.Object({ success: ok, delivery: Delivery }),
    },
  },
  handler: async (request, { clients }) => ({
    success: true as const,
    delivery: presentDelivery(
      await clients.webhooks.retrySubscriptionDelivery({
        principal: principalOf(request),
        subscription_id: request.params.webhook_id,
        delivery_id: request.params.delivery_id,
      }),
    ),
  }),
});

export const sendTestEnterpriseWebhook = defineEndpoint({
  method: 'POST',
  url: '/api/enterprise/webhooks/:webhook_id/test',
  operationId: 'sendTestEnterpriseWebhook',
  tags: TAGS,
  summary: 'Send a signed test event (default: the subscription’s first type)',
  access: SESSION,
  ...testEventRequest,
  responses: {
    202: {
      description: 'The test delivery, queued',
      schema: Type.Object({ success: ok, delivery: Delivery }),
    },
  },
  handler: async (request, { clients }) => ({
    success: true as const,
    delivery: await sendTestEvent(request, ({ id, ...rest }) =>
      clients.webhooks.sendSubscriptionTest({ ...rest, subscription_id: id }),
    ),
  }),
});
