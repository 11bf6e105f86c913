// The use cases of webhooks: versioned endpoints (CRUD, secret rotation, deliveries, replay,
// test events), enterprise subscriptions, and the fan-out of a domain event into deliveries.
// Pure rules first (domain/), then the outbound guard's DNS check, then the stores.
import {
  invalidParam,
  isId,
  newId,
  notFound,
  randomHex,
  type EventEnvelope,
  type OutboundGuard,
  type Queryable,
} from '@hallmark/kit';
import type {
  DeliveriesStore,
  DeliveryRecord,
  NewDelivery,
  Receiver,
  TargetColumn,
} from './deliveries-store.js';
import {
  enterpriseBody,
  enterpriseTestBody,
  enterpriseTypeOf,
  expandBatch,
  isEnterpriseType,
  isVersionedType,
  testEvent,
  versionedBody,
  versionedTypeOf,
} from './domain/events.js';
import { generateEndpointSecret } from './domain/signing.js';
import {
  parseDeliveryStatus,
  parseDescription,
  parseEndpointSecret,
  parseEnterpriseEvents,
  parseListenEvents,
  parseOverlap,
  parseSettableStatus,
  parseSubscriptionSecret,
  parseUrl,
  parseVersionedEvents,
} from './domain/validation.js';
import { parsePage } from '@hallmark/kit/page';
import type { ListenSessionRecord, SessionsStore } from './sessions-store.js';
import type { EndpointRecord, Scope, SubscriptionRecord, WebhooksStore } from './store.js';
import type { ListenHub, StreamedEvent } from './workers/listen-hub.js';

/** Ids are checked for shape before any lookup; a malformed id is simply not found. */
function endpointId(id: string): string {
  if (!isId('webhook', id)) throw notFound('webhook endpoint', id);
  return id;
}
function subscriptionId(id: string): string {
  if (!isId('enterpriseWebhook', id)) throw notFound('webhook', id);
  return id;
}
function deliveryIdOf(id: string): string {
  if (!isId('delivery', id)) throw notFound('delivery', id);
  return id;
}

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  secret?: string;
}

export interface EndpointPatch {
  url?: string;
  /** Undefined: leave the events as they are. */
  events?: string[];
  description?: string;
  status?: string;
}

export class WebhooksService {
  constructor(
    private readonly store: WebhooksStore,
    private readonly deliveries: DeliveriesStore,
    private readonly guard: OutboundGuard,
    private readonly sessions: SessionsStore,
    private readonly hub: ListenHub,
  ) {}

  /** Syntax first (no I/O for a bad URL), then the guard resolves and checks the host. */
  private async checkedUrl(raw: string | undefined): Promise<string> {
    const url = parseUrl(raw);
    await this.guard.assertUrl(url, { param: 'url' });
    return url;
  }

  async createEndpoint(
    scope: Scope,
    input: EndpointInput,
  ): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const events = parseVersionedEvents(input.events);
    const description = parseDescription(input.description);
    const secret = parseEndpointSecret(input.secret) ?? generateEndpointSecret();
    const url = await this.checkedUrl(input.url);
    return { endpoint: await this.store.createEndpoint(scope, { url, events, description, secret }), secret };
  }

  async listEndpoints(scope: Scope, rawPage: { page?: number; limit?: number } | undefined) {
    const page = parsePage(rawPage);
    return { ...(await this.store.listEndpoints(scope, page)), page };
  }

  getEndpoint(scope: Scope, id: string): Promise<EndpointRecord> {
    return this.store.getEndpoint(scope, endpointId(id));
  }

  async updateEndpoint(scope: Scope, rawId: string, input: EndpointPatch): Promise<EndpointRecord> {
    const id = endpointId(rawId);
    const patch = {
      events: input.events !== undefined ? parseVersionedEvents(input.events) : undefined,
      description: parseDescription(input.description),
      status: parseSettableStatus(input.status),
      url: input.url !== undefined ? parseUrl(input.url) : undefined,
    };
    await this.store.getEndpoint(scope, id); // not found before any DNS work
    if (patch.url) await this.guard.assertUrl(patch.url, { param: 'url' });
    return this.store.updateEndpoint(scope, id, patch);
  }

  async deleteEndpoint(scope: Scope, rawId: string): Promise<string> {
    const id = endpointId(rawId);
    await this.store.deleteEndpoint(scope, id);
    return id;
  }

  async rotateSecret(
    scope: Scope,
    rawId: string,
    input: { overlapSeconds?: number; secret?: string },
  ): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const id = endpointId(rawId);
    const overlap = parseOverlap(input.overlapSeconds);
    const secret = parseEndpointSecret(input.secret) ?? generateEndpointSecret();
    return { endpoint: await this.store.rotateSecret(scope, id, secret, overlap), secret };
  }

  async listDeliveries(
    scope: Scope,
    rawId: string,
    rawPage: { page?: number; limit?: number } | undefined,
    rawStatus: string,
  ) {
    const id = endpointId(rawId);
    const page = parsePage(rawPage);
    const status = parseDeliveryStatus(rawStatus);
    await this.store.getEndpoint(scope, id);
    return { ...(await this.deliveries.list(scope, id, { ...page, status })), page };
  }

  retryDelivery(scope: Scope, rawEndpointId: string, deliveryId: string): Promise<DeliveryRecord> {
    const id = endpointId(rawEndpointId);
    return this.deliveries.retryNow(scope, id, deliveryIdOf(deliveryId));
  }

  /** A synthetic event of the requested type (default: the endpoint's first), delivered like any other. */
  async sendTestEvent(scope: Scope, rawId: string, eventType: string | undefined): Promise<DeliveryRecord> {
    const endpoint = await this.store.getEndpoint(scope, endpointId(rawId));
    const type = eventType || endpoint.events[0]!;
    if (!isVersionedType(type)) throw invalidParam('event_type', `Unknown event type '${type}'.`);
    const event = testEvent(
      type,
      scope,
      { eventId: newId('event'), objectId: `test_${randomHex(8)}` },
      new Date(),
    );
    return this.deliveries.enqueueTest(scope, endpoint.id, event, versionedBody(event));
  }

  async createSubscription(
    scope: Scope,
    input: { url?: string; events?: string[]; enabled?: boolean; secret?: string },
  ): Promise<{ subscription: SubscriptionRecord; secret: string }> {
    const events = parseEnterpriseEvents(input.events);
    const secret = parseSubscriptionSecret(input.secret) ?? randomHex(32);
    const url = await this.checkedUrl(input.url);
    const subscription = await this.store.createSubscription(scope, {
      url,
      events,
      enabled: input.enabled ?? true,
      secret,
    });
    return { subscription, secret };
  }

  listSubscriptions(scope: Scope): Promise<SubscriptionRecord[]> {
    return this.store.listSubscriptions(scope);
  }

  getSubscription(scope: Scope, id: string): Promise<SubscriptionRecord> {
    return this.store.getSubscription(scope, subscriptionId(id));
  }

  async deleteSubscription(scope: Scope, rawId: string): Promise<string> {
    const id = subscriptionId(rawId);
    await this.store.deleteSubscription(scope, id);
    return id;
  }

  /** Enabling clears `failing`/`disabled`; disabling stops new deliveries to it. */
  updateSubscription(scope: Scope, id: string, enabled: boolean | undefined): Promise<SubscriptionRecord> {
    const sid = subscriptionId(id);
    if (enabled === undefined) return this.store.getSubscription(scope, sid);
    return this.store.setEnabled(scope, sid, enabled);
  }

  async listSubscriptionDeliveries(
    scope: Scope,
    rawId: string,
    rawPage: { page?: number; limit?: number } | undefined,
    rawStatus: string,
  ) {
    const id = subscriptionId(rawId);
    const page = parsePage(rawPage);
    const status = parseDeliveryStatus(rawStatus);
    await this.store.getSubscription(scope, id);
    return { ...(await this.deliveries.list(scope, id, { ...page, status }, 'subscription_id')), page };
  }

  /** A synthetic enterprise event (default: the subscription's first type), delivered like any other. */
  async sendSubscriptionTest(scope: Scope, rawId: string, eventType: string | undefined) {
    const sub = await this.store.getSubscription(scope, subscriptionId(rawId));
    const type = eventType || sub.events[0]!;
    if (!isEnterpriseType(type)) throw invalidParam('event_type', `Unknown event type '${type}'.`);
    const event = { id: newId('event'), type };
    const body = enterpriseTestBody(type, new Date());
    return this.deliveries.enqueueTest(scope, sub.id, event, body, 'subscription_id');
  }

  /** A replay (or an earlier attempt) of a subscription's delivery: retryDelivery's rule, X-Webhook-* signed. */
  retrySubscriptionDelivery(scope: Scope, rawId: string, deliveryId: string): Promise<DeliveryRecord> {
    const id = subscriptionId(rawId);
    return this.deliveries.retryNow(scope, id, deliveryIdOf(deliveryId), 'subscription_id');
  }

  async listListenDeliveries(
    scope: Scope,
    rawId: string,
    rawPage: { page?: number; limit?: number } | undefined,
    rawStatus: string,
  ) {
    if (!isId('listenSession', rawId)) throw notFound('listen session', rawId);
    const page = parsePage(rawPage);
    const status = parseDeliveryStatus(rawStatus);
    await this.sessions.get(scope, rawId);
    return { ...(await this.deliveries.list(scope, rawId, { ...page, status }, 'session_id')), page };
  }

  /**
   * Opens a listen session and serves it until `signal` aborts: `opened` gets the session
   * (with its secret) first, `write` every delivery after. The session ends with the call.
   */
  async listen(
    scope: Scope & { actorId: string | null },
    rawEvents: string[],
    io: {
      opened(session: ListenSessionRecord, secret: string): Promise<void>;
      write(e: StreamedEvent): Promise<void>;
      signal: AbortSignal;
    },
  ): Promise<void> {
    const events = parseListenEvents(rawEvents);
    const secret = generateEndpointSecret();
    const session = await this.sessions.open(scope, { events, secret, actorId: scope.actorId });
    await io.opened(session, secret);
    await this.hub.serve(session.id, secret, io.write, io.signal);
  }

  /**
   * The deliveries of a batch of domain events, in the caller's transaction: one per matching
   * endpoint (versioned types), subscription (enterprise events) and listen session of each
   * event's enterprise and mode. The receivers of the whole batch are read at once (a burst
   * — three events per redemption — costs a few statements, not a few per event).
   * Idempotent per (event, receiver): a second call inserts nothing. Returns how many were created.
   */
  async fanOut(tx: Queryable, events: readonly EventEnvelope[]): Promise<number> {
    // A batch of voucher events counts as the per-voucher events it stands for.
    const scoped = events.flatMap(expandBatch).filter((e): e is ScopedEvent => Boolean(e.enterprise_id));
    if (scoped.length === 0) return 0;
    const scopes = distinctScopes(scoped);
    const { endpoints, subscriptions } = await this.deliveries.receiversOf(tx, scopes);
    const sessions = await this.sessions.openFor(tx, scopes);
    if (endpoints.length + subscriptions.length + sessions.length === 0) return 0;
    const byScope = {
      endpoint_id: groupByScope(endpoints),
      subscription_id: groupByScope(subscriptions),
      session_id: groupByScope(sessions),
    };
    const deliveries: NewDelivery[] = [];
    for (const event of scoped) {
      const key = scopeKey({ enterpriseId: event.enterprise_id, livemode: event.livemode });
      const add = (column: TargetColumn, type: string, body: string) => {
        for (const r of byScope[column].get(key) ?? [])
          if (takes(column, r, type)) deliveries.push({ event, target: { column, id: r.id, type, body } });
      };
      const vType = versionedTypeOf(event);
      const eType = enterpriseTypeOf(event);
      const vBody = vType ? versionedBody(event, vType) : '';
      const eBody = eType ? enterpriseBody(event, eType) : '';
      if (vType) add('endpoint_id', vType, vBody);
      if (eType) add('subscription_id', eType, eBody);
      // Listen sessions hear both kinds, each as its own receivers would.
      if (vType) add('session_id', vType, vBody);
      else if (eType) add('session_id', eType, eBody);
    }
    return deliveries.length === 0 ? 0 : this.deliveries.insertDeliveries(tx, deliveries);
  }
}

/** An event of one enterprise (events with none have no webhooks). */
type ScopedEvent = EventEnvelope & { enterprise_id: string };

const scopeKey = (s: Scope): string => `${s.livemode ? 'live' : 'test'}|${s.enterpriseId}`;

function distinctScopes(events: readonly ScopedEvent[]): Scope[] {
  const scopes = new Map<string, Scope>();
  for (const e of events) {
    const scope = { enterpriseId: e.enterprise_id, livemode: e.livemode };
    scopes.set(scopeKey(scope), scope);
  }
  return [...scopes.values()];
}

function groupByScope(receivers: readonly Receiver[]): Map<string, Receiver[]> {
  const groups = new Map<string, Receiver[]>();
  for (const r of receivers) {
    const key = scopeKey(r);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return groups;
}

/** Whether a receiver takes a type: listed, or (a listen session only) an empty list: every type. */
const takes = (column: TargetColumn, r: Receiver, type: string): boolean =>
  r.events.includes(type) || (column === 'session_id' && r.events.length === 0);
