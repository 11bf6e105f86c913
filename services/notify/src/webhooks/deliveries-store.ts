// All SQL of deliveries: fan-out's reads and inserts (in the consumer's transaction),
// claiming due attempts under a lease (FOR UPDATE SKIP LOCKED, so replicas never collide),
// recording outcomes, listing, replay and test events. What to deliver and what an outcome
// means are decided by service.ts and the worker (domain/).
import {
  HallmarkError,
  newId,
  notFound,
  randomBase62,
  type Encryptor,
  type EventEnvelope,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import type { AttemptRecord, Claim, DeliveryRecord, Outcome } from './domain/delivery.js';
import type { DeliveryStatus } from './domain/validation.js';
import type { Scope } from './store.js';

export const WAKE_CHANNEL = 'hallmark_webhooks';

export type { AttemptRecord, Claim, DeliveryRecord, Outcome } from './domain/delivery.js';

/** Where one delivery of an event goes, as what type, with which body. */
export interface DeliveryTarget {
  column: 'endpoint_id' | 'subscription_id';
  id: string;
  type: string;
  body: string;
}

export class DeliveriesStore {
  constructor(
    private readonly pool: Pool,
    private readonly encryptor: Encryptor,
    /** Attempts per delivery: 1 + the retry schedule's length. */
    private readonly maxAttempts: number,
  ) {}

  /** The endpoints of the enterprise and mode subscribed to a versioned type (not disabled). */
  async endpointsFor(
    tx: Queryable,
    enterpriseId: string,
    livemode: boolean,
    type: string,
  ): Promise<string[]> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM webhook_endpoints WHERE enterprise_id = $1 AND livemode = $2
         AND status <> 'disabled' AND $3 = ANY (events)`,
      [enterpriseId, livemode, type],
    );
    return rows.map((r) => r.id);
  }

  /** The enabled enterprise subscriptions of the enterprise and mode to an enterprise event name. */
  async subscriptionsFor(
    tx: Queryable,
    enterpriseId: string,
    livemode: boolean,
    name: string,
  ): Promise<string[]> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM enterprise_subscriptions WHERE enterprise_id = $1 AND livemode = $2
         AND enabled AND $3 = ANY (events)`,
      [enterpriseId, livemode, name],
    );
    return rows.map((r) => r.id);
  }

  /**
   * One delivery of the event per target, in the caller's transaction; idempotent per (event,
   * endpoint or subscription): a second call inserts nothing. Wakes the workers at commit when
   * it created any. Returns how many were created.
   */
  async insertDeliveries(
    tx: Queryable,
    event: EventEnvelope,
    targets: readonly DeliveryTarget[],
  ): Promise<number> {
    let created = 0;
    for (const column of ['endpoint_id', 'subscription_id'] as const) {
      const list = targets.filter((t) => t.column === column);
      if (list.length === 0) continue;
      const { rowCount } = await tx.query(
        `INSERT INTO webhook_deliveries (id, ${column}, enterprise_id, livemode, event_id, event_type, body,
           max_attempts, next_attempt_at)
         SELECT d.id, d.target, $3, $4, $5, d.type, d.body, $6, now()
         FROM unnest($1::text[], $2::text[], $7::text[], $8::text[]) AS d (id, target, type, body)
         ON CONFLICT (${column}, event_id) DO NOTHING`,
        [
          list.map(() => newId('delivery')),
          list.map((t) => t.id),
          event.enterprise_id,
          event.livemode,
          event.id,
          this.maxAttempts,
          list.map((t) => t.type),
          list.map((t) => t.body),
        ],
      );
      created += rowCount ?? 0;
    }
    if (created > 0) await tx.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
    return created;
  }

  /**
   * Claims up to `limit` due attempts: each claimed row gets attempts + 1, a fresh claim
   * token and a lease (next_attempt_at = now + leaseMs), and its attempt is logged as
   * started — all in one statement. A worker that dies mid-attempt leaves the lease to run
   * out; the next claim is then the next attempt number, so no number is ever sent twice
   * (and an attempt whose outcome was never recorded does not use up the last one).
   */
  async claimDue(limit: number, leaseMs: number): Promise<Claim[]> {
    const token = randomBase62(16);
    const { rows } = await this.pool.query<{
      id: string;
      attempts: number;
      max_attempts: number;
      event_id: string;
      event_type: string;
      body: string;
      endpoint_id: string | null;
      url: string;
      secret_enc: string;
      previous_secret_enc: string | null;
    }>(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= now()
           AND (d.endpoint_id IS NULL OR e.status <> 'disabled')
         ORDER BY d.next_attempt_at LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, claim_token = $2,
           max_attempts = GREATEST(d.max_attempts, d.attempts + 1),
           next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, d.max_attempts, d.event_id, d.event_type, d.body, d.endpoint_id,
           d.subscription_id
       ), logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at)
         SELECT id, attempts, now() FROM claimed
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT c.id, c.attempts, c.max_attempts, c.event_id, c.event_type, c.body, c.endpoint_id,
         COALESCE(e.url, s.url) AS url, COALESCE(e.secret_enc, s.secret_enc) AS secret_enc,
         CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_enc END AS previous_secret_enc
       FROM claimed c
       LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
       LEFT JOIN enterprise_subscriptions s ON s.id = c.subscription_id`,
      [limit, token, leaseMs],
    );
    return rows.map((r) => ({
      ...this.decryptSecrets([r.secret_enc, r.previous_secret_enc]),
      id: r.id,
      token,
      attempt: r.attempts,
      maxAttempts: r.max_attempts,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      url: r.url,
      kind: r.endpoint_id ? 'endpoint' : 'subscription',
    }));
  }

  private decryptSecrets(encrypted: (string | null)[]): Pick<Claim, 'secrets' | 'secretError'> {
    try {
      return { secrets: encrypted.filter((s): s is string => !!s).map((s) => this.encryptor.decrypt(s)) };
    } catch (err) {
      return { secrets: [], secretError: `cannot decrypt the signing secret: ${(err as Error).message}` };
    }
  }

  /**
   * Records an attempt's outcome and moves the delivery to `next` (decided by the worker:
   * succeeded; pending again after `waitS`; or failed after the last attempt). The endpoint
   * follows: `failed` when a delivery exhausts its attempts, `active` again when a later one
   * succeeds (a `disabled` endpoint stays disabled). A stale claim (lease lost) still logs the
   * attempt but moves nothing. Returns the delivery's new status, or null for a stale claim.
   */
  async record(
    claim: Claim,
    outcome: Outcome,
    next: { status: DeliveryStatus; waitS: number | null },
  ): Promise<DeliveryStatus | null> {
    const { status, waitS } = next;
    const { rows } = await this.pool.query<{ moved: number }>(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = $3, claim_token = NULL,
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $4::int) END,
           delivered_at = CASE WHEN $3 = 'succeeded' THEN now() ELSE delivered_at END
         WHERE id = $1 AND claim_token = $2
         RETURNING endpoint_id, status
       ), a AS (
         UPDATE webhook_attempts SET status_code = $6, latency_ms = $7, error = $8
         WHERE delivery_id = $1 AND attempt = $5
       ), e AS (
         UPDATE webhook_endpoints ep
         SET status = CASE WHEN d.status = 'succeeded' THEN 'active' ELSE 'failed' END, updated_at = now()
         FROM d WHERE ep.id = d.endpoint_id
           AND ((d.status = 'succeeded' AND ep.status = 'failed') OR (d.status = 'failed' AND ep.status = 'active'))
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
      ],
    );
    return rows[0]!.moved > 0 ? status : null;
  }

  /** Deliveries waiting for an attempt, and those of them already due (metrics: the backlog). */
  async backlog(): Promise<{ pending: number; due: number }> {
    const { rows } = await this.pool.query<{ pending: number; due: number }>(
      `SELECT count(*)::int AS pending, count(*) FILTER (WHERE next_attempt_at <= now())::int AS due
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return rows[0] ?? { pending: 0, due: 0 };
  }

  /** When the next pending attempt is due (null: none), to size the worker's sleep. */
  async nextDueAt(): Promise<Date | null> {
    const { rows } = await this.pool.query<{ at: Date | null }>(
      `SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return rows[0]?.at ?? null;
  }

  async list(
    scope: Scope,
    endpointId: string,
    q: { page: number; limit: number; status?: DeliveryStatus },
  ): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
    const { rows } = await this.pool.query<DeliveryRow & { total: number }>(
      `SELECT ${DELIVERY_COLUMNS}, count(*) OVER ()::int AS total FROM webhook_deliveries
       WHERE endpoint_id = $1 AND enterprise_id = $2 AND livemode = $3 AND ($4::text IS NULL OR status = $4)
       ORDER BY created_at DESC, id LIMIT $5 OFFSET $6`,
      [endpointId, scope.enterpriseId, scope.livemode, q.status ?? null, q.limit, (q.page - 1) * q.limit],
    );
    const logs = await this.attemptsOf(rows.map((r) => r.id));
    return {
      deliveries: rows.map((r) => deliveryFromRow(r, logs.get(r.id) ?? [])),
      total: rows[0]?.total ?? 0,
    };
  }

  async get(scope: Scope, endpointId: string, id: string): Promise<DeliveryRecord> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE id = $1 AND endpoint_id = $2 AND enterprise_id = $3 AND livemode = $4`,
      [id, endpointId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('delivery', id);
    const logs = await this.attemptsOf([id]);
    return deliveryFromRow(rows[0], logs.get(id) ?? []);
  }

  /**
   * Schedules an attempt now. A finished delivery (succeeded or failed) gets exactly one more
   * attempt (a replay); a pending one has its next attempt moved to now. Refused while an
   * attempt is in flight.
   */
  async retryNow(scope: Scope, endpointId: string, id: string): Promise<DeliveryRecord> {
    const current = await this.get(scope, endpointId, id);
    if (current.inFlight)
      throw new HallmarkError('resource_locked', {
        message: 'An attempt of this delivery is in flight; retry later.',
      });
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_deliveries SET
         max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempts + 1 END,
         status = 'pending', next_attempt_at = now()
       WHERE id = $1 AND endpoint_id = $2 AND NOT (claim_token IS NOT NULL AND next_attempt_at > now())`,
      [id, endpointId],
    );
    if (!rowCount)
      throw new HallmarkError('resource_locked', {
        message: 'An attempt of this delivery is in flight; retry later.',
      });
    await this.pool.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
    return this.get(scope, endpointId, id);
  }

  /** Queues one delivery of a synthetic event (its versioned `body`) to one endpoint. */
  async enqueueTest(
    scope: Scope,
    endpointId: string,
    event: EventEnvelope,
    body: string,
  ): Promise<DeliveryRecord> {
    const id = newId('delivery');
    await this.pool.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, enterprise_id, livemode, event_id, event_type, body,
         max_attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())`,
      [id, endpointId, scope.enterpriseId, scope.livemode, event.id, event.type, body, this.maxAttempts],
    );
    await this.pool.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
    return this.get(scope, endpointId, id);
  }

  private async attemptsOf(ids: string[]): Promise<Map<string, AttemptRecord[]>> {
    const out = new Map<string, AttemptRecord[]>();
    if (ids.length === 0) return out;
    const { rows } = await this.pool.query<{
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
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
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

const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, status, attempts, max_attempts,
  CASE WHEN claim_token IS NULL OR next_attempt_at <= now() THEN next_attempt_at END AS next_attempt_at,
  created_at, delivered_at,
  (claim_token IS NOT NULL AND next_attempt_at > now()) AS in_flight`;

const deliveryFromRow = (r: DeliveryRow, log: AttemptRecord[]): DeliveryRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
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
