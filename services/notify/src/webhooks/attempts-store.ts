// The read side of deliveries shared by every kind of target: the row shape, its columns,
// and the attempt log of a set of deliveries (one query for a page).
import type { Queryable, RetentionRule } from '@hallmark/kit';
import type { AttemptRecord, DeliveryRecord } from './domain/delivery.js';
import type { DeliveryStatus } from './domain/validation.js';

const FINISHED = "status <> 'pending'";

/**
 * Retention (kit retention.ts) of finished deliveries and their attempt log: 30 days after the
 * event, as Svix keeps message attempts; a pending delivery (retries still due) stays however
 * old. Attempts go first, in batches of their own, so a delivery's DELETE never cascades
 * through an unbounded log.
 */
export const DELIVERY_RETENTION: RetentionRule[] = [
  {
    table: 'webhook_attempts',
    key: '(delivery_id, attempt)',
    parent: { table: 'webhook_deliveries', key: 'id', ref: 'delivery_id' },
    ageColumn: 'created_at',
    onlyIf: FINISHED,
    defaultDays: 30,
  },
  { table: 'webhook_deliveries', key: 'id', ageColumn: 'created_at', onlyIf: FINISHED, defaultDays: 30 },
];

export async function attemptsOf(pool: Queryable, ids: string[]): Promise<Map<string, AttemptRecord[]>> {
  const out = new Map<string, AttemptRecord[]>();
  if (ids.length === 0) return out;
  const { rows } = await pool.query<{
    delivery_id: string;
    attempt: number;
    attempted_at: Date;
    status_code: number | null;
    latency_ms: number | null;
    error: string | null;
  }>(
    `SELECT delivery_id, attempt, attempted_at, status_code, latency_ms, error FROM webhook_attempts
     WHERE delivery_id = ANY ($1) ORDER BY delivery_id, attempt`,
    [ids],
  );
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    list.push({
      attempt: r.attempt,
      attemptedAt: r.attempted_at,
      statusCode: r.status_code,
      latencyMs: r.latency_ms,
      error: r.error,
    });
    out.set(r.delivery_id, list);
  }
  return out;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string | null;
  subscription_id: string | null;
  session_id: string | null;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
  in_flight: boolean;
}

export const DELIVERY_COLUMNS = `id, endpoint_id, subscription_id, session_id, event_id, event_type, status, attempts, max_attempts,
  CASE WHEN claim_token IS NULL OR next_attempt_at <= now() THEN next_attempt_at END AS next_attempt_at,
  created_at, delivered_at,
  (claim_token IS NOT NULL AND next_attempt_at > now()) AS in_flight`;

export const deliveryFromRow = (r: DeliveryRow, log: AttemptRecord[]): DeliveryRecord => ({
  id: r.id,
  endpointId: r.endpoint_id ?? '',
  subscriptionId: r.subscription_id,
  sessionId: r.session_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
  inFlight: r.in_flight,
  log,
});
