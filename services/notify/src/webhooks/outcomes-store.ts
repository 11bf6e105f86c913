// Outcomes of attempts: the delivery moves on (succeeded, pending again or failed), its attempt
// log gets the answer, and the endpoint or subscription follows. One attempt in one statement;
// successful attempts (nearly all of a healthy burst) many in one statement, so a burst costs
// the database a statement per batch of answers rather than one per answer.
import type { Pool, Queryable } from '@hallmark/kit';
import { withGenericPlan } from './plan-store.js';
import type { Claim, Outcome } from './domain/delivery.js';
import type { DeliveryStatus } from './domain/validation.js';

/** When an enterprise subscription turns `failing`, and when it is disabled: failed attempts in a row. */
export interface HealthThresholds {
  failingAfter: number;
  disableAfter: number;
}

/** A successful attempt to record: its claim and how long the answer took. */
export interface Succeeded {
  claim: Pick<Claim, 'id' | 'token' | 'attempt'>;
  statusCode: number;
  latencyMs: number;
}

/**
 * Records an attempt's outcome and moves the delivery to `next` (decided by the worker:
 * succeeded; pending again after `waitS`; or failed after the last attempt). The endpoint
 * follows: `failed` when a delivery exhausts its attempts, `active` again when a later one
 * succeeds (a `disabled` endpoint stays disabled). An enterprise subscription counts failed
 * attempts in a row: `failing` from `failingAfter`, disabled (enabled false) at
 * `disableAfter`; a success resets it to `active`. A stale claim (lease lost) still logs the
 * attempt but moves nothing. Returns the delivery's new status, or null for a stale claim.
 */
export async function recordOutcome(
  db: Queryable,
  health: HealthThresholds,
  claim: Claim,
  outcome: Outcome,
  next: { status: DeliveryStatus; waitS: number | null },
): Promise<DeliveryStatus | null> {
  const { status, waitS } = next;
  const { rows } = await db.query<{ moved: number }>(
    `WITH d AS (
       UPDATE webhook_deliveries SET status = $3, claim_token = NULL,
         next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $4::int) END,
         delivered_at = CASE WHEN $3 = 'succeeded' THEN now() ELSE delivered_at END
       WHERE id = $1 AND claim_token = $2
       RETURNING endpoint_id, subscription_id, status
     ), a AS (
       UPDATE webhook_attempts SET status_code = $6, latency_ms = $7, error = $8
       WHERE delivery_id = $1 AND attempt = $5
     ), e AS (
       UPDATE webhook_endpoints ep
       SET status = CASE WHEN d.status = 'succeeded' THEN 'active' ELSE 'failed' END, updated_at = now()
       FROM d WHERE ep.id = d.endpoint_id
         AND ((d.status = 'succeeded' AND ep.status = 'failed') OR (d.status = 'failed' AND ep.status = 'active'))
     ), s AS (
       UPDATE enterprise_subscriptions sub SET
         consecutive_failures = CASE WHEN d.status = 'succeeded' THEN 0 ELSE sub.consecutive_failures + 1 END,
         last_failure_at = CASE WHEN d.status = 'succeeded' THEN sub.last_failure_at ELSE now() END,
         last_error = CASE WHEN d.status = 'succeeded' THEN sub.last_error ELSE $8 END,
         enabled = sub.enabled AND (d.status = 'succeeded' OR sub.consecutive_failures + 1 < $10),
         status = CASE
           WHEN NOT sub.enabled THEN 'disabled'
           WHEN d.status = 'succeeded' THEN 'active'
           WHEN sub.consecutive_failures + 1 >= $10 THEN 'disabled'
           WHEN sub.consecutive_failures + 1 >= $9 THEN 'failing'
           ELSE sub.status END
       FROM d WHERE sub.id = d.subscription_id
     )
     SELECT count(*)::int AS moved FROM d`,
    [
      claim.id,
      claim.token,
      status,
      waitS ?? 0,
      claim.attempt,
      outcome.statusCode,
      Math.round(outcome.latencyMs),
      outcome.error?.slice(0, 500) ?? null,
      health.failingAfter,
      health.disableAfter,
    ],
  );
  return rows[0]!.moved > 0 ? status : null;
}

/**
 * Records successful attempts at once (rows found by primary key, `= ANY` of the ids, so
 * the plan reused for every batch never scans the table), as \`recordOutcome\` would one by one: each delivery
 * whose claim still holds becomes \`succeeded\`, every attempt's log gets its answer, a
 * \`failed\` endpoint is \`active\` again and a subscription's failure streak ends (only rows that
 * change are written). Returns the ids of the deliveries moved (the others' claims were stale).
 */
export async function recordSucceeded(pool: Pool, items: readonly Succeeded[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  // Its generic plan, built once per connection (plan-store.ts).
  const rows = await withGenericPlan<{ id: string }>(pool, {
    name: 'notify_record_succeeded',
    text: `WITH i AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[])
         AS i (id, token, attempt, code, latency)
     ), d AS (
       UPDATE webhook_deliveries d SET status = 'succeeded', claim_token = NULL, next_attempt_at = NULL,
         delivered_at = now()
       FROM i WHERE d.id = ANY ($1::text[]) AND d.id = i.id AND d.claim_token = i.token
       RETURNING d.id, d.endpoint_id, d.subscription_id
     ), a AS (
       UPDATE webhook_attempts a SET status_code = i.code, latency_ms = i.latency, error = NULL
       FROM i WHERE a.delivery_id = ANY ($1::text[]) AND a.delivery_id = i.id AND a.attempt = i.attempt
     ), e AS (
       UPDATE webhook_endpoints SET status = 'active', updated_at = now()
       WHERE id IN (SELECT endpoint_id FROM d) AND status = 'failed'
     ), s AS (
       UPDATE enterprise_subscriptions SET consecutive_failures = 0,
         status = CASE WHEN enabled THEN 'active' ELSE 'disabled' END
       WHERE id IN (SELECT subscription_id FROM d)
         AND (consecutive_failures <> 0 OR status <> CASE WHEN enabled THEN 'active' ELSE 'disabled' END)
     )
     SELECT id FROM d`,
    values: [
      items.map((s) => s.claim.id),
      items.map((s) => s.claim.token),
      items.map((s) => s.claim.attempt),
      items.map((s) => s.statusCode),
      items.map((s) => Math.round(s.latencyMs)),
    ],
  });
  return new Set(rows.map((r) => r.id));
}
