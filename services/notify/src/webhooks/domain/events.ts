// Which domain events become which webhooks, and the exact bytes each receiver gets.
// Pure: no I/O. Versioned endpoints get the spec's envelope; enterprise subscriptions get
// the spec's enterprise body (spec › Events).
import {
  ENTERPRISE_EVENT_NAMES,
  enterpriseNameOf,
  VERSIONED_EVENT_TYPES,
  versionedTypeOf as versionedTypeFor,
  type EnterpriseEventName as EnterpriseEventType,
  type EventEnvelope,
  type VersionedEventType,
} from '@hallmark/kit/events';

// Which types are subscribable and what each is delivered as come from the kit's one table
// of event contracts (EVENTS): nothing is listed again here.
export {
  VERSIONED_EVENT_TYPES,
  type EnterpriseEventName as EnterpriseEventType,
  type VersionedEventType,
} from '@hallmark/kit/events';
/** The enterprise webhook names (`voucher.created`, …), as subscriptions spell them. */
export const ENTERPRISE_EVENT_TYPES = ENTERPRISE_EVENT_NAMES;

/** `api_version` of every envelope (spec › Versioning 2: YYYY-MM). */
export const API_VERSION = '2025-09';

const versioned = new Set<string>(VERSIONED_EVENT_TYPES);
const enterprise = new Set<string>(ENTERPRISE_EVENT_NAMES);

export const isVersionedType = (t: string): t is VersionedEventType => versioned.has(t);
export const isEnterpriseType = (t: string): t is EnterpriseEventType => enterprise.has(t);

/** The versioned type a domain event is delivered as, or null (internal events). */
export function versionedTypeOf(event: Pick<EventEnvelope, 'type'>): VersionedEventType | null {
  return versionedTypeFor(event.type);
}

/**
 * The enterprise event a domain event is delivered as, or null: the certificate voucher's
 * `certificate_voucher.created` goes out as the spec's `voucher.created`; the discount
 * voucher's `voucher.created` is internal.
 */
export function enterpriseTypeOf(event: Pick<EventEnvelope, 'type'>): EnterpriseEventType | null {
  return enterpriseNameOf(event.type);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The resource of an event: `data.object` when there is one, else `data` itself. */
export function objectOf(data: unknown): Record<string, unknown> {
  if (isRecord(data) && isRecord(data.object)) return data.object;
  return isRecord(data) ? data : {};
}

export interface VersionedEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
  api_version: string;
  livemode: boolean;
}

/** The spec's envelope (spec › Event envelope); `created_at` is when the event occurred. */
export function versionedBody(event: EventEnvelope, type: string = event.type): string {
  const body: VersionedEnvelope = {
    id: event.id,
    type,
    created_at: event.occurred_at,
    data: { object: objectOf(event.data) },
    api_version: API_VERSION,
    livemode: event.livemode,
  };
  return JSON.stringify(body);
}

/**
 * The spec's enterprise body: `{event, timestamp, …}`. Bulk job events carry their fields
 * at the top level as the spec lists them (jobId, status, summary, results, shop, orderId,
 * orderNumber, voucher_map, voucher_all), and so does `platform.order.failed` (shop, orderId,
 * orderNumber, orderName, error); voucher events carry the voucher as `voucher`.
 */
export function enterpriseBody(event: EventEnvelope, type: EnterpriseEventType): string {
  const head = { event: type, timestamp: event.occurred_at };
  if (type === 'bulk.job.completed' || type === 'bulk.job.failed' || type === 'platform.order.failed') {
    const data = isRecord(event.data) ? event.data : {};
    return JSON.stringify({ ...head, ...data, event: type, timestamp: event.occurred_at });
  }
  return JSON.stringify({ ...head, voucher: objectOf(event.data) });
}

/**
 * A synthetic event for SendTestEvent: the requested type with a sample of the resource its
 * group carries (spec › Event envelope, sampled objects), marked `test: true`.
 */
export function testEvent(
  type: VersionedEventType,
  scope: { enterpriseId: string; livemode: boolean },
  ids: { eventId: string; objectId: string },
  now: Date,
): EventEnvelope {
  const at = now.toISOString();
  const group = type.split('.')[0];
  const object: Record<string, unknown> =
    group === 'transaction'
      ? {
          id: ids.objectId,
          type: 'test',
          amount: 1000,
          currency: 'USD',
          status: 'completed',
          user_id: null,
          description: 'Test event',
          metadata: {},
          created_at: at,
        }
      : group === 'payment'
        ? {
            id: ids.objectId,
            transaction_id: null,
            amount: 1000,
            currency: 'USD',
            payment_method: 'test',
            status: 'succeeded',
            receipt_url: null,
          }
        : group === 'user'
          ? { id: ids.objectId, email: 'test@example.com', verification_type: 'email', verified_at: at }
          : { id: ids.objectId, created_at: at };
  return {
    id: ids.eventId,
    type: type as EventEnvelope['type'],
    source: 'notify',
    occurred_at: at,
    enterprise_id: scope.enterpriseId,
    livemode: scope.livemode,
    request_id: null,
    data: { object: { ...object, test: true } } as EventEnvelope['data'],
  };
}

/** The body of an enterprise test send: the type's spec fields with sample values, `test: true`. */
export function enterpriseTestBody(type: EnterpriseEventType, now: Date): string {
  const head = { event: type, timestamp: now.toISOString(), test: true };
  if (type === 'bulk.job.completed' || type === 'bulk.job.failed') {
    const failed = type === 'bulk.job.failed';
    return JSON.stringify({
      ...head,
      jobId: 'job_test',
      status: failed ? 'failed' : 'completed',
      summary: { total: 1, succeeded: failed ? 0 : 1, failed: failed ? 1 : 0 },
      results: [],
      ...(failed ? { error: 'Test event' } : {}),
    });
  }
  if (type === 'platform.order.failed')
    return JSON.stringify({
      ...head,
      shop: 'test-shop.myshopify.com',
      orderId: 'gid://shopify/Order/1',
      orderNumber: '1001',
      orderName: '#1001',
      error: { code: 'parameter_missing', message: 'Test event', param: 'metadata[0].imageUrl' },
    });
  return JSON.stringify({ ...head, voucher: { id: 'v_test', status: 'active', test: true } });
}

/**
 * The per-voucher events a certificate_voucher.batch stands for (kit events): each voucher's
 * certificate_voucher.created and .minted, with the batch event's scope and time and the id
 * `<batch event id>.<c|m>.<voucher id>` (stable: a redelivered batch yields the same ids, so
 * deliveries are not doubled and receivers deduplicate as for any event). Other events: as is.
 */
export function expandBatch(event: EventEnvelope): EventEnvelope[] {
  if (event.type !== 'certificate_voucher.batch') return [event];
  const data = event.data as { created?: unknown; minted?: unknown };
  const each = (list: unknown, type: EventEnvelope['type'], tag: string): EventEnvelope[] =>
    (Array.isArray(list) ? list : [])
      .filter((o): o is { id: string } => isRecord(o) && typeof o.id === 'string')
      .map((object) => ({ ...event, id: `${event.id}.${tag}.${object.id}`, type, data: { object } }));
  return [
    ...each(data.created, 'certificate_voucher.created', 'c'),
    ...each(data.minted, 'certificate_voucher.minted', 'm'),
  ];
}
