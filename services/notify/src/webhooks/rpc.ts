// gRPC handlers of WebhooksService: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import { pageInfo } from '@hallmark/kit/page';
import type {
  Delivery,
  EnterpriseSubscription,
  WebhookEndpoint,
  WebhooksServiceServer,
} from '@hallmark/proto/notify/v1/webhooks';
import type { DeliveryRecord } from './deliveries-store.js';
import type { WebhooksService } from './service.js';
import type { EndpointRecord, SubscriptionRecord } from './store.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? undefined;

export function endpointToProto(e: EndpointRecord, secret?: string): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status,
    description: e.description ?? undefined,
    secret,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
    livemode: e.livemode,
    previous_secret_expires_at: iso(e.previousSecretExpiresAt),
  };
}

export function deliveryToProto(d: DeliveryRecord): Delivery {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    max_attempts: d.maxAttempts,
    next_attempt_at: iso(d.nextAttemptAt),
    created_at: d.createdAt.toISOString(),
    delivered_at: iso(d.deliveredAt),
    subscription_id: d.subscriptionId ?? undefined,
    session_id: d.sessionId ?? undefined,
    attempt_log: d.log.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attemptedAt.toISOString(),
      status_code: a.statusCode ?? undefined,
      latency_ms: a.latencyMs ?? 0,
      error:
        a.error ??
        (a.latencyMs === null ? 'no outcome recorded yet (in flight, or the worker stopped)' : undefined),
    })),
  };
}

const subscriptionToProto = (s: SubscriptionRecord, secret?: string): EnterpriseSubscription => ({
  id: s.id,
  url: s.url,
  events: s.events,
  enabled: s.enabled,
  secret,
  created_at: s.createdAt.toISOString(),
  status: s.status,
  consecutive_failures: s.consecutiveFailures,
  last_failure_at: iso(s.lastFailureAt),
  last_error: s.lastError ?? undefined,
});

export function createWebhooksHandlers(service: WebhooksService): AsyncHandlers<WebhooksServiceServer> {
  return {
    async createEndpoint(req) {
      const { endpoint, secret } = await service.createEndpoint(scopeOf(req.principal), {
        url: req.url,
        events: req.events,
        description: req.description,
        secret: req.secret,
      });
      return endpointToProto(endpoint, secret);
    },

    async listEndpoints(req) {
      const { endpoints, total, page } = await service.listEndpoints(scopeOf(req.principal), req.page);
      return {
        endpoints: endpoints.map((e) => endpointToProto(e)),
        pagination: pageInfo(page, total),
      };
    },

    async getEndpoint(req) {
      return endpointToProto(await service.getEndpoint(scopeOf(req.principal), req.endpoint_id));
    },

    async updateEndpoint(req) {
      const endpoint = await service.updateEndpoint(scopeOf(req.principal), req.endpoint_id, {
        events: req.set_events ? req.events : undefined,
        description: req.description,
        status: req.status,
        url: req.url,
      });
      return endpointToProto(endpoint);
    },

    async deleteEndpoint(req) {
      return { id: await service.deleteEndpoint(scopeOf(req.principal), req.endpoint_id), deleted: true };
    },

    async rotateSecret(req) {
      const { endpoint, secret } = await service.rotateSecret(scopeOf(req.principal), req.endpoint_id, {
        overlapSeconds: req.overlap_seconds,
        secret: req.secret,
      });
      return endpointToProto(endpoint, secret);
    },

    async listDeliveries(req) {
      const scope = scopeOf(req.principal);
      const { deliveries, total, page } = await service.listDeliveries(
        scope,
        req.endpoint_id,
        req.page,
        req.status,
      );
      return {
        deliveries: deliveries.map(deliveryToProto),
        pagination: pageInfo(page, total),
      };
    },

    async retryDelivery(req) {
      return deliveryToProto(
        await service.retryDelivery(scopeOf(req.principal), req.endpoint_id, req.delivery_id),
      );
    },

    async sendTestEvent(req) {
      return deliveryToProto(
        await service.sendTestEvent(scopeOf(req.principal), req.endpoint_id, req.event_type),
      );
    },

    async createSubscription(req) {
      const { subscription, secret } = await service.createSubscription(scopeOf(req.principal), {
        url: req.url,
        events: req.events,
        enabled: req.enabled,
        secret: req.secret,
      });
      return subscriptionToProto(subscription, secret);
    },

    async listSubscriptions(req) {
      const list = await service.listSubscriptions(scopeOf(req.principal));
      return { subscriptions: list.map((s) => subscriptionToProto(s)) };
    },

    async getSubscription(req) {
      return subscriptionToProto(await service.getSubscription(scopeOf(req.principal), req.subscription_id));
    },

    async deleteSubscription(req) {
      return {
        id: await service.deleteSubscription(scopeOf(req.principal), req.subscription_id),
        deleted: true,
      };
    },

    async updateSubscription(req) {
      return subscriptionToProto(
        await service.updateSubscription(scopeOf(req.principal), req.subscription_id, req.enabled),
      );
    },

    async listSubscriptionDeliveries(req) {
      const { deliveries, total, page } = await service.listSubscriptionDeliveries(
        scopeOf(req.principal),
        req.subscription_id,
        req.page,
        req.status,
      );
      return {
        deliveries: deliveries.map(deliveryToProto),
        pagination: pageInfo(page, total),
      };
    },

    async sendSubscriptionTest(req) {
      return deliveryToProto(
        await service.sendSubscriptionTest(scopeOf(req.principal), req.subscription_id, req.event_type),
      );
    },

    async retrySubscriptionDelivery(req) {
      return deliveryToProto(
        await service.retrySubscriptionDelivery(scopeOf(req.principal), req.subscription_id, req.delivery_id),
      );
    },

    async listListenDeliveries(req) {
      const { deliveries, total, page } = await service.listListenDeliveries(
        scopeOf(req.principal),
        req.session_id,
        req.page,
        req.status,
      );
      return {
        deliveries: deliveries.map(deliveryToProto),
        pagination: pageInfo(page, total),
      };
    },

    async listen(req, call) {
      const scope = { ...scopeOf(req.principal), actorId: req.principal?.actor_id || null };
      await service.listen(scope, req.events, {
        opened: (session, secret) =>
          call.write({
            session: {
              id: session.id,
              secret,
              livemode: session.livemode,
              events: session.events,
              created_at: session.createdAt.toISOString(),
            },
          }),
        write: (event) => call.write({ event }),
        signal: call.signal,
      });
    },
  };
}
