// gRPC handlers of WebhooksService: proto <-> domain, nothing else (the outbound guard's
// DNS check runs here, after the pure rules).
import {
  invalidParam,
  isId,
  missingParam,
  newId,
  notFound,
  randomHex,
  type AsyncHandlers,
  type OutboundGuard,
} from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type {
  Delivery,
  EnterpriseSubscription,
  WebhookEndpoint,
  WebhooksServiceServer,
} from '@hallmark/proto/notify/v1/webhooks';
import type { DeliveriesStore, DeliveryRecord } from './deliveries.js';
import { isVersionedType, testEvent } from './domain/events.js';
import { generateEndpointSecret } from './domain/signing.js';
import {
  parseDeliveryStatus,
  parseDescription,
  parseEndpointSecret,
  parseEnterpriseEvents,
  parseOverlap,
  parsePage,
  parseSettableStatus,
  parseSubscriptionSecret,
  parseUrl,
  parseVersionedEvents,
} from './domain/validation.js';
import type { EndpointRecord, Scope, SubscriptionRecord, WebhooksStore } from './store.js';

export function scopeOf(p: Principal | undefined): Scope {
  if (!p?.enterprise_id) throw missingParam('principal');
  return { enterpriseId: p.enterprise_id, livemode: p.livemode };
}

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
});

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
function endpointId(id: string): string {
  if (!isId('webhook', id)) throw notFound('webhook endpoint', id);
  return id;
}
function subscriptionId(id: string): string {
  if (!isId('enterpriseWebhook', id)) throw notFound('webhook', id);
  return id;
}

export function createWebhooksHandlers(
  store: WebhooksStore,
  deliveries: DeliveriesStore,
  guard: OutboundGuard,
): AsyncHandlers<WebhooksServiceServer> {
  /** Syntax first (no I/O for a bad URL), then the guard resolves and checks the host. */
  const checkedUrl = async (raw: string | undefined) => {
    const url = parseUrl(raw);
    await guard.assertUrl(url, { param: 'url' });
    return url;
  };

  return {
    async createEndpoint(req) {
      const scope = scopeOf(req.principal);
      const events = parseVersionedEvents(req.events);
      const description = parseDescription(req.description);
      const secret = parseEndpointSecret(req.secret) ?? generateEndpointSecret();
      const url = await checkedUrl(req.url);
      const e = await store.createEndpoint(scope, { url, events, description, secret });
      return endpointToProto(e, secret);
    },

    async listEndpoints(req) {
      const scope = scopeOf(req.principal);
      const page = parsePage(req.page);
      const { endpoints, total } = await store.listEndpoints(scope, page);
      return {
        endpoints: endpoints.map((e) => endpointToProto(e)),
        pagination: { ...page, total, total_pages: Math.ceil(total / page.limit) },
      };
    },

    async getEndpoint(req) {
      return endpointToProto(await store.getEndpoint(scopeOf(req.principal), endpointId(req.endpoint_id)));
    },

    async updateEndpoint(req) {
      const scope = scopeOf(req.principal);
      const id = endpointId(req.endpoint_id);
      const patch = {
        events: req.set_events ? parseVersionedEvents(req.events) : undefined,
        description: parseDescription(req.description),
        status: parseSettableStatus(req.status),
        url: req.url !== undefined ? parseUrl(req.url) : undefined,
      };
      await store.getEndpoint(scope, id); // not found before any DNS work
      if (patch.url) await guard.assertUrl(patch.url, { param: 'url' });
      return endpointToProto(await store.updateEndpoint(scope, id, patch));
    },

    async deleteEndpoint(req) {
      const id = endpointId(req.endpoint_id);
      await store.deleteEndpoint(scopeOf(req.principal), id);
      return { id, deleted: true };
    },

    async rotateSecret(req) {
      const scope = scopeOf(req.principal);
      const id = endpointId(req.endpoint_id);
      const overlap = parseOverlap(req.overlap_seconds);
      const secret = parseEndpointSecret(req.secret) ?? generateEndpointSecret();
      return endpointToProto(await store.rotateSecret(scope, id, secret, overlap), secret);
    },

    async listDeliveries(req) {
      const scope = scopeOf(req.principal);
      const id = endpointId(req.endpoint_id);
      const page = parsePage(req.page);
      const status = parseDeliveryStatus(req.status);
      await store.getEndpoint(scope, id);
      const { deliveries: list, total } = await deliveries.list(scope, id, { ...page, status });
      return {
        deliveries: list.map(deliveryToProto),
        pagination: { ...page, total, total_pages: Math.ceil(total / page.limit) },
      };
    },

    async retryDelivery(req) {
      const scope = scopeOf(req.principal);
      const id = endpointId(req.endpoint_id);
      if (!isId('delivery', req.delivery_id)) throw notFound('delivery', req.delivery_id);
      return deliveryToProto(await deliveries.retryNow(scope, id, req.delivery_id));
    },

    async sendTestEvent(req) {
      const scope = scopeOf(req.principal);
      const endpoint = await store.getEndpoint(scope, endpointId(req.endpoint_id));
      const type = req.event_type || endpoint.events[0]!;
      if (!isVersionedType(type)) throw invalidParam('event_type', `Unknown event type '${type}'.`);
      const event = testEvent(
        type,
        scope,
        { eventId: newId('event'), objectId: `test_${randomHex(8)}` },
        new Date(),
      );
      return deliveryToProto(await deliveries.enqueueTest(scope, endpoint.id, event));
    },

    async createSubscription(req) {
      const scope = scopeOf(req.principal);
      const events = parseEnterpriseEvents(req.events);
      const secret = parseSubscriptionSecret(req.secret) ?? randomHex(32);
      const url = await checkedUrl(req.url);
      const s = await store.createSubscription(scope, { url, events, enabled: req.enabled ?? true, secret });
      return subscriptionToProto(s, secret);
    },

    async listSubscriptions(req) {
      const list = await store.listSubscriptions(scopeOf(req.principal));
      return { subscriptions: list.map((s) => subscriptionToProto(s)) };
    },

    async getSubscription(req) {
      return subscriptionToProto(
        await store.getSubscription(scopeOf(req.principal), subscriptionId(req.subscription_id)),
      );
    },

    async deleteSubscription(req) {
      const id = subscriptionId(req.subscription_id);
      await store.deleteSubscription(scopeOf(req.principal), id);
      return { id, deleted: true };
    },
  };
}
