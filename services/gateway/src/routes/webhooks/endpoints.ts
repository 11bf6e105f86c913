// /api/v1/webhooks: webhook endpoints (spec › Webhook endpoints) plus, as Svix offers,
// delivery history, replay, test events and secret rotation. Managing endpoints needs
// `admin.*` or a user session (architecture.md › Scopes). Event types, HTTPS and the
// outbound guard are checked by the notify service (param `url` / `events[i]`).
import { VERSIONED_EVENT_TYPES } from '@hallmark/kit/events';
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, idParams, list, nullable, oneOf, str, Type } from '../../endpoint/schema.js';
import { pageQuery } from '../bounds.js';
import { Pagination, presentPagination } from '../pagination.js';
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
import { presentEndpoint, WebhookEndpoint } from './endpoint.js';
import { sendTestEvent, testEventRequest } from './test-event.js';

export const TAGS = ['Webhook endpoints'];
export const ADMIN: Access = { auth: 'either', scope: 'admin.*' };

const url = Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS only' });
const events = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description: 'Versioned event types (spec › Events)',
});
const description = Type.String({ maxLength: 500 });
const secret = Type.String({ maxLength: 200, description: 'whsec_ + base64 of 24–64 bytes' });
const webhookParams = idParams('webhook_id');

export const createWebhookEndpoint = defineEndpoint({
  method: 'POST',
  url: '/api/v1/webhooks',
  operationId: 'createWebhookEndpoint',
  tags: TAGS,
  summary: 'Create a webhook endpoint (the secret is returned here and on rotation only)',
  access: ADMIN,
  body: closed({ url, events, description: Type.Optional(description), secret: Type.Optional(secret) }),
  responses: { 201: { description: 'The endpoint, with its signing secret', schema: WebhookEndpoint } },
  handler: async (request, { clients }) => {
    const b = request.body;
    return presentEndpoint(
      await clients.webhooks.createEndpoint({
        principal: principalOf(request),
        url: b.url,
        events: b.events,
        description: b.description,
        secret: b.secret,
      }),
    );
  },
});

export const listWebhookEndpoints = defineEndpoint({
  method: 'GET',
  url: '/api/v1/webhooks',
  operationId: 'listWebhookEndpoints',
  tags: TAGS,
  summary: 'List webhook endpoints, newest first',
  access: ADMIN,
  querystring: closed(pageQuery),
  responses: {
    200: {
      description: 'A page of endpoints, newest first (secrets never shown)',
      schema: Type.Object({ webhooks: list(WebhookEndpoint, 100), pagination: Pagination }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.webhooks.listEndpoints(
      {
        principal: principalOf(request),
        page: { page: request.query.page ?? 1, limit: request.query.limit ?? 20 },
      },
      { idempotent: true },
    );
    return { webhooks: res.endpoints.map(presentEndpoint), pagination: presentPagination(res.pagination!) };
  },
});

export const getWebhookEndpoint = defineEndpoint({
  method: 'GET',
  url: '/api/v1/webhooks/:webhook_id',
  operationId: 'getWebhookEndpoint',
  tags: TAGS,
  summary: 'Get a webhook endpoint',
  access: ADMIN,
  params: webhookParams,
  responses: { 200: { description: 'The endpoint', schema: WebhookEndpoint } },
  handler: async (request, { clients }) =>
    presentEndpoint(
      await clients.webhooks.getEndpoint(
        { principal: principalOf(request), endpoint_id: request.params.webhook_id },
        { idempotent: true },
      ),
    ),
});

export const updateWebhookEndpoint = defineEndpoint({
  method: 'PATCH',
  url: '/api/v1/webhooks/:webhook_id',
  operationId: 'updateWebhookEndpoint',
  tags: TAGS,
  summary: 'Update url, events, description or status (active clears failed)',
  access: ADMIN,
  params: webhookParams,
  body: closed(
    {
      url: Type.Optional(url),
      events: Type.Optional(events),
      description: Type.Optional(description),
      status: Type.Optional(oneOf(['active', 'disabled'])),
    },
    { minProperties: 1 },
  ),
  responses: { 200: { description: 'The updated endpoint', schema: WebhookEndpoint } },
  handler: async (request, { clients }) => {
    const b = request.body;
    return presentEndpoint(
      await clients.webhooks.updateEndpoint({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
        url: b.url,
        events: b.events ?? [],
        set_events: b.events !== undefined,
        description: b.description,
        status: b.status,
      }),
    );
  },
});

export const deleteWebhookEndpoint = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/webhooks/:webhook_id',
  operationId: 'deleteWebhookEndpoint',
  tags: TAGS,
  summary: 'Delete a webhook endpoint and its deliveries',
  access: ADMIN,
  params: webhookParams,
  responses: {
    200: { description: 'Deleted with its deliveries', schema: Type.Object({ id: str(64), deleted: bool }) },
  },
  handler: async (request, { clients }) => {
    const res = await clients.webhooks.deleteEndpoint({
      principal: principalOf(request),
      endpoint_id: request.params.webhook_id,
    });
    return { id: res.id, deleted: res.deleted };
  },
});

export const listWebhookDeliveries = defineEndpoint({
  method: 'GET',
  url: '/api/v1/webhooks/:webhook_id/deliveries',
  operationId: 'listWebhookDeliveries',
  tags: TAGS,
  summary: 'Deliveries of an endpoint with their attempts (status code, latency, time), newest first',
  access: ADMIN,
  params: webhookParams,
  querystring: DeliveriesQuery,
  responses: {
    200: { description: 'A page of deliveries, newest first', schema: Type.Object(DeliveryPage) },
  },
  handler: async (request, { clients }) =>
    presentDeliveryPage(
      await clients.webhooks.listDeliveries(
        { principal: principalOf(request), endpoint_id: request.params.webhook_id, ...pageOf(request.query) },
        { idempotent: true },
      ),
    ),
});

export const retryWebhookDelivery = defineEndpoint({
  method: 'POST',
  url: '/api/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
  operationId: 'retryWebhookDelivery',
  tags: TAGS,
  summary: 'Attempt a delivery now (a replay for a finished one: same event id, new signature)',
  access: ADMIN,
  params: deliveryParams,
  responses: { 202: { description: 'The delivery, queued again', schema: Delivery } },
  handler: async (request, { clients }) =>
    presentDelivery(
      await clients.webhooks.retryDelivery({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
        delivery_id: request.params.delivery_id,
      }),
    ),
});

export const sendTestWebhook = defineEndpoint({
  method: 'POST',
  url: '/api/v1/webhooks/:webhook_id/test',
  operationId: 'sendTestWebhook',
  tags: TAGS,
  summary: 'Send a signed test event to this endpoint (queued; see its deliveries)',
  access: ADMIN,
  ...testEventRequest,
  responses: { 202: { description: 'The test delivery, queued', schema: Delivery } },
  handler: async (request, { clients }) =>
    sendTestEvent(request, ({ id, ...rest }) => clients.webhooks.sendTestEvent({ ...rest, endpoint_id: id })),
});

export const rotateWebhookSecret = defineEndpoint({
  method: 'POST',
  url: '/api/v1/webhooks/:webhook_id/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags: TAGS,
  summary: 'New signing secret; the old one keeps signing too for overlap_seconds (default 24 h)',
  access: ADMIN,
  params: webhookParams,
  body: nullable(
    closed({
      secret: Type.Optional(secret),
      overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604800 })),
    }),
  ),
  responses: {
    200: { description: 'The endpoint with its new secret (shown once)', schema: WebhookEndpoint },
  },
  handler: async (request, { clients }) =>
    presentEndpoint(
      await clients.webhooks.rotateSecret({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
        secret: request.body?.secret,
        overlap_seconds: request.body?.overlap_seconds,
      }),
    ),
});

/**
 * What an endpoint may subscribe to, from the kit's one table of event contracts: a client
 * builds its event picker from this instead of a list copied from the docs (Svix's
 * `GET /event-type`). No service is asked: the gateway ships with the same table notify checks.
 */
export const listWebhookEventTypes = defineEndpoint({
  method: 'GET',
  url: '/api/v1/webhooks/event-types',
  operationId: 'listWebhookEventTypes',
  tags: TAGS,
  summary: 'List the event types a webhook endpoint can subscribe to',
  access: ADMIN,
  responses: {
    200: {
      description: 'Every versioned event type, in the order of the event table',
      schema: closed({ data: list(closed({ type: str(100) }), 200) }),
    },
  },
  handler: async () => ({ data: VERSIONED_EVENT_TYPES.map((type) => ({ type })) }),
});
