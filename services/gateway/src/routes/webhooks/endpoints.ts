// /api/v1/webhooks: webhook endpoints (spec › Webhook endpoints) plus, as Svix offers,
// delivery history, replay, test events and secret rotation. Managing endpoints needs
// `admin.*` or a user session (architecture.md › Scopes). Event types, HTTPS and the
// outbound guard are checked by the notify service (param `url` / `events[i]`).
import type { Delivery, WebhookEndpoint } from '@hallmark/proto/notify/v1/webhooks';
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { pageQuery } from '../bounds.js';

const TAGS = ['Webhook endpoints'];
const ADMIN = { auth: 'either' as const, scope: 'admin.*' };

function presentEndpoint(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status,
    description: e.description ?? null,
    ...(e.secret ? { secret: e.secret } : {}),
    created_at: e.created_at,
    updated_at: e.updated_at,
    livemode: e.livemode,
    ...(e.previous_secret_expires_at ? { previous_secret_expires_at: e.previous_secret_expires_at } : {}),
  };
}

export function presentDelivery(d: Delivery) {
  return {
    id: d.id,
    webhook_id: d.endpoint_id || d.subscription_id || d.session_id || null,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    max_attempts: d.max_attempts,
    next_attempt_at: d.next_attempt_at ?? null,
    created_at: d.created_at,
    delivered_at: d.delivered_at ?? null,
    attempt_log: d.attempt_log.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at,
      status_code: a.status_code ?? null,
      latency_ms: a.latency_ms,
      error: a.error ?? null,
    })),
  };
}

const url = { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS only' };
const events = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: { type: 'string', maxLength: 100 },
  description: 'Versioned event types (spec › Events)',
};
const description = { type: 'string', maxLength: 500 };
const secret = { type: 'string', maxLength: 200, description: 'whsec_ + base64 of 24–64 bytes' };
const endpointAndDelivery = {
  type: 'object',
  required: ['webhook_id', 'delivery_id'],
  additionalProperties: false,
  properties: {
    webhook_id: { type: 'string', minLength: 1, maxLength: 64 },
    delivery_id: { type: 'string', minLength: 1, maxLength: 64 },
  },
};

type Params = { webhook_id: string };

export default async function webhookEndpoints(app: FastifyInstance, { clients }: RouteDeps) {
  const webhookId = idParam('webhook_id');
  const api = clients.webhooks;

  app.post<{ Body: { url: string; events: string[]; description?: string; secret?: string } }>(
    '/api/v1/webhooks',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Create a webhook endpoint (the secret is returned here and on rotation only)',
        body: {
          type: 'object',
          required: ['url', 'events'],
          additionalProperties: false,
          properties: { url, events, description, secret },
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const e = await api.createEndpoint({
        principal: principalOf(request),
        url: b.url,
        events: b.events,
        description: b.description,
        secret: b.secret,
      });
      return reply.status(201).send(presentEndpoint(e));
    },
  );

  app.get<{ Querystring: { page?: number; limit?: number } }>(
    '/api/v1/webhooks',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'List webhook endpoints, newest first',
        querystring: { type: 'object', additionalProperties: false, properties: pageQuery },
      },
    },
    async (request) => {
      const res = await api.listEndpoints(
        {
          principal: principalOf(request),
          page: { page: request.query.page ?? 1, limit: request.query.limit ?? 20 },
        },
        { idempotent: true },
      );
      return { webhooks: res.endpoints.map(presentEndpoint), pagination: res.pagination };
    },
  );

  app.get<{ Params: Params }>(
    '/api/v1/webhooks/:webhook_id',
    { config: ADMIN, schema: { tags: TAGS, summary: 'Get a webhook endpoint', params: webhookId } },
    async (request) =>
      presentEndpoint(
        await api.getEndpoint(
          { principal: principalOf(request), endpoint_id: request.params.webhook_id },
          { idempotent: true },
        ),
      ),
  );

  app.patch<{
    Params: Params;
    Body: { url?: string; events?: string[]; description?: string; status?: string };
  }>(
    '/api/v1/webhooks/:webhook_id',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Update url, events, description or status (active clears failed)',
        params: webhookId,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: { url, events, description, status: { type: 'string', enum: ['active', 'disabled'] } },
        },
      },
    },
    async (request) => {
      const b = request.body;
      return presentEndpoint(
        await api.updateEndpoint({
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
  );

  app.delete<{ Params: Params }>(
    '/api/v1/webhooks/:webhook_id',
    {
      config: ADMIN,
      schema: { tags: TAGS, summary: 'Delete a webhook endpoint and its deliveries', params: webhookId },
    },
    async (request) => {
      const res = await api.deleteEndpoint({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
      });
      return { id: res.id, deleted: res.deleted };
    },
  );

  app.get<{ Params: Params; Querystring: { page?: number; limit?: number; status?: string } }>(
    '/api/v1/webhooks/:webhook_id/deliveries',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Deliveries of an endpoint with their attempts (status code, latency, time), newest first',
        params: webhookId,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { ...pageQuery, status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] } },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const res = await api.listDeliveries(
        {
          principal: principalOf(request),
          endpoint_id: request.params.webhook_id,
          page: { page: q.page ?? 1, limit: q.limit ?? 20 },
          status: q.status ?? '',
        },
        { idempotent: true },
      );
      return { deliveries: res.deliveries.map(presentDelivery), pagination: res.pagination };
    },
  );

  app.post<{ Params: { webhook_id: string; delivery_id: string } }>(
    '/api/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Attempt a delivery now (a replay for a finished one: same event id, new signature)',
        params: endpointAndDelivery,
      },
    },
    async (request, reply) => {
      const d = await api.retryDelivery({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
        delivery_id: request.params.delivery_id,
      });
      return reply.status(202).send(presentDelivery(d));
    },
  );

  app.post<{ Params: Params; Body: { event_type?: string } | null }>(
    '/api/v1/webhooks/:webhook_id/test',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Send a signed test event to this endpoint (queued; see its deliveries)',
        params: webhookId,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { event_type: { type: 'string', maxLength: 100 } },
        },
      },
    },
    async (request, reply) => {
      const d = await api.sendTestEvent({
        principal: principalOf(request),
        endpoint_id: request.params.webhook_id,
        event_type: request.body?.event_type,
      });
      return reply.status(202).send(presentDelivery(d));
    },
  );

  app.post<{ Params: Params; Body: { secret?: string; overlap_seconds?: number } | null }>(
    '/api/v1/webhooks/:webhook_id/rotate-secret',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'New signing secret; the old one keeps signing too for overlap_seconds (default 24 h)',
        params: webhookId,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { secret, overlap_seconds: { type: 'integer', minimum: 0, maximum: 604800 } },
        },
      },
    },
    async (request) =>
      presentEndpoint(
        await api.rotateSecret({
          principal: principalOf(request),
          endpoint_id: request.params.webhook_id,
          secret: request.body?.secret,
          overlap_seconds: request.body?.overlap_seconds,
        }),
      ),
  );
}
