// /api/enterprise/webhooks: enterprise webhook subscriptions (spec › Enterprise webhook
// subscription), managed with a user session. Bodies follow the unversioned surface
// (`success`); the secret is shown once, in the create response.
import type { EnterpriseSubscription } from '@hallmark/proto/notify/v1/webhooks';
import type { FastifyInstance } from 'fastify';
import { pageQuery } from '../bounds.js';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { presentDelivery } from './endpoints.js';

const TAGS = ['Enterprise'];
const SESSION = { auth: 'session' as const };

function presentSubscription(s: EnterpriseSubscription) {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    enabled: s.enabled,
    ...(s.secret ? { secret: s.secret } : {}),
    createdAt: s.created_at,
    status: s.status,
    consecutiveFailures: s.consecutive_failures,
    lastFailureAt: s.last_failure_at ?? null,
    lastError: s.last_error ?? null,
  };
}

export default async function enterpriseWebhooks(app: FastifyInstance, { clients }: RouteDeps) {
  const webhookId = idParam('webhook_id');
  const api = clients.webhooks;

  app.post<{ Body: { url: string; events: string[]; secret?: string; enabled?: boolean } }>(
    '/api/enterprise/webhooks',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Subscribe to enterprise events (session token)',
        body: {
          type: 'object',
          required: ['url', 'events'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS only' },
            events: {
              type: 'array',
              minItems: 1,
              maxItems: 10,
              items: { type: 'string', maxLength: 100 },
              description:
                'bulk.job.completed, bulk.job.failed, voucher.created, voucher.minted, platform.order.failed',
            },
            secret: {
              type: 'string',
              maxLength: 200,
              description: '64 hex characters; generated when absent',
            },
            enabled: { type: 'boolean' },
          },
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const s = await api.createSubscription({
        principal: principalOf(request),
        url: b.url,
        events: b.events,
        secret: b.secret,
        enabled: b.enabled,
      });
      return reply.status(201).send({ success: true, webhook: presentSubscription(s) });
    },
  );

  app.get(
    '/api/enterprise/webhooks',
    { config: SESSION, schema: { tags: TAGS, summary: 'List enterprise webhook subscriptions' } },
    async (request) => {
      const res = await api.listSubscriptions({ principal: principalOf(request) }, { idempotent: true });
      return { success: true, webhooks: res.subscriptions.map(presentSubscription) };
    },
  );

  app.get<{ Params: { webhook_id: string } }>(
    '/api/enterprise/webhooks/:webhook_id',
    {
      config: SESSION,
      schema: { tags: TAGS, summary: 'Get an enterprise webhook subscription', params: webhookId },
    },
    async (request) => {
      const s = await api.getSubscription(
        { principal: principalOf(request), subscription_id: request.params.webhook_id },
        { idempotent: true },
      );
      return { success: true, webhook: presentSubscription(s) };
    },
  );

  app.delete<{ Params: { webhook_id: string } }>(
    '/api/enterprise/webhooks/:webhook_id',
    {
      config: SESSION,
      schema: { tags: TAGS, summary: 'Delete an enterprise webhook subscription', params: webhookId },
    },
    async (request) => {
      const res = await api.deleteSubscription({
        principal: principalOf(request),
        subscription_id: request.params.webhook_id,
      });
      return { success: true, id: res.id, deleted: res.deleted };
    },
  );

  app.patch<{ Params: { webhook_id: string }; Body: { enabled: boolean } }>(
    '/api/enterprise/webhooks/:webhook_id',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Enable or disable a subscription (enabling clears failing/disabled)',
        params: webhookId,
        body: {
          type: 'object',
          required: ['enabled'],
          additionalProperties: false,
          properties: { enabled: { type: 'boolean' } },
        },
      },
    },
    async (request) => {
      const s = await api.updateSubscription({
        principal: principalOf(request),
        subscription_id: request.params.webhook_id,
        enabled: request.body.enabled,
      });
      return { success: true, webhook: presentSubscription(s) };
    },
  );

  app.get<{
    Params: { webhook_id: string };
    Querystring: { page?: number; limit?: number; status?: string };
  }>(
    '/api/enterprise/webhooks/:webhook_id/deliveries',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary:
          'Deliveries of a subscription with every attempt (status code, latency, error), newest first',
        params: webhookId,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { ...pageQuery, status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] } },
        },
      },
    },
    async (request) => {
      const res = await api.listSubscriptionDeliveries(
        {
          principal: principalOf(request),
          subscription_id: request.params.webhook_id,
          page: { page: request.query.page ?? 1, limit: request.query.limit ?? 20 },
          status: request.query.status ?? '',
        },
        { idempotent: true },
      );
      return {
        success: true,
        deliveries: res.deliveries.map(presentDelivery),
        pagination: res.pagination,
      };
    },
  );

  app.post<{ Params: { webhook_id: string }; Body: { event_type?: string } | undefined }>(
    '/api/enterprise/webhooks/:webhook_id/test',
    {
      config: SESSION,
      schema: {
        tags: TAGS,
        summary: 'Send a signed test event (default: the subscription’s first type)',
        params: webhookId,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { event_type: { type: 'string', maxLength: 100 } },
        },
      },
    },
    async (request, reply) => {
      const d = await api.sendSubscriptionTest({
        principal: principalOf(request),
        subscription_id: request.params.webhook_id,
        event_type: request.body?.event_type,
      });
      return reply.status(202).send({ success: true, delivery: presentDelivery(d) });
    },
  );
}
