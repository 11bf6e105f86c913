// A delivery of an event to an endpoint, enterprise subscription or listen session, with
// every attempt (status code, latency, error): defined once, the `Delivery` component, and
// the query and page every delivery list shares.
import type { Delivery as DeliveryRecord, ListDeliveriesResponse } from '@hallmark/proto/notify/v1/webhooks';
import { defineResource } from '../../endpoint/resource.js';
import { closed, int, list, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { pageQuery } from '../bounds.js';
import { Pagination, presentPagination } from '../pagination.js';

export const Delivery = defineResource(
  'Delivery',
  Type.Object({
    id: str(64),
    webhook_id: Type.Optional(
      nullable(str(64, 'The endpoint (webhook_…), enterprise subscription (wh_…) or listen session (lsn_…)')),
    ),
    event_id: Type.Optional(str(64)),
    event_type: Type.Optional(str(100)),
    status: str(32),
    attempts: Type.Optional(int()),
    max_attempts: Type.Optional(int()),
    next_attempt_at: Type.Optional(nullable(time)),
    created_at: Type.Optional(time),
    delivered_at: Type.Optional(nullable(time)),
    attempt_log: Type.Optional(
      list(
        Type.Object({
          attempt: int(),
          attempted_at: time,
          status_code: nullable(int('The endpoint’s HTTP status; null when it did not answer')),
          latency_ms: int(),
          error: nullable(str(2000)),
        }),
        100,
      ),
    ),
  }),
);

export function presentDelivery(d: DeliveryRecord): Static<typeof Delivery> {
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

/** A delivery's path: its endpoint or subscription, and itself. */
export const deliveryParams = closed({
  webhook_id: Type.String({ minLength: 1, maxLength: 64 }),
  delivery_id: Type.String({ minLength: 1, maxLength: 64 }),
});

/** `page`, `limit` and `status` of every delivery list. */
export const DeliveriesQuery = closed({
  ...pageQuery,
  status: Type.Optional(oneOf(['pending', 'succeeded', 'failed'])),
});

export const DeliveryPage = { deliveries: list(Delivery, 100), pagination: Pagination };

export const presentDeliveryPage = (res: ListDeliveriesResponse) => ({
  deliveries: res.deliveries.map(presentDelivery),
  pagination: presentPagination(res.pagination!),
});

/** The request's page of a delivery list, in the RPC's terms. */
export const pageOf = (q: Static<typeof DeliveriesQuery>) => ({
  page: { page: q.page ?? 1, limit: q.limit ?? 20 },
  status: q.status ?? '',
});
