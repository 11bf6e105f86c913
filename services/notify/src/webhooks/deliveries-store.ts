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
import { attemptsOf, DELIVERY_COLUMNS, deliveryFromRow, type DeliveryRow } from './attempts-store.js';
import { recordOutcome, recordSucceeded, type HealthThresholds, type Succeeded } from './outcomes-store.js';
import type { Claim, DeliveryRecord, Outcome } from './domain/delivery.js';
import { deliveryIdFor } from './domain/delivery-id.js';
import { withGenericPlan } from './plan-store.js';
import type { DeliveryStatus } from './domain/validation.js';
import type { Scope } from './store.js';

export const WAKE_CHANNEL = 'hallmark_webhooks';

export type { AttemptRecord, Claim, DeliveryRecord, Outcome } from './domain/delivery.js';
export type { HealthThresholds, Succeeded } from './outcomes-store.js';

/** What a delivery belongs to: a versioned endpoint, an enterprise subscription or a listen session. */
export type TargetColumn = 'endpoint_id' | 'subscription_id' | 'session_id';

/** Where one delivery of an event goes, as what type, with which body. */
export interface DeliveryTarget {
  column: TargetColumn;
  id: string;
  type: string;
  body: string;
}

/** One delivery to create: the event and where it goes. */
export interface NewDelivery {
  event: EventEnvelope;
  target: DeliveryTarget;
}

/** An endpoint, subscription or listen session, with the types it takes (empty: every type, sessions only). */
export interface Receiver extends Scope {
  id: string;
  events: readonly string[];
}

export interface Receivers {
  endpoints: Receiver[];
  subscriptions: Receiver[];
}

export interface ReceiverRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  events: string[];
}

export const receiverOf = (r: ReceiverRow): Receiver => ({
  id: r.id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  events: r.events,
});

export class DeliveriesStore {
  constructor(
    private readonly pool: Pool,
    private readonly encryptor: Encryptor,
    /** Attempts per delivery: 1 + the retry schedule's length. */
    private readonly maxAttempts: number,
    private readonly health: HealthThresholds = { failingAfter: 3, disableAfter: 20 },
  ) {}

  /**
   * The receivers a batch of events can go to, in fan-out's transaction: the endpoints (not
   * disabled) and the enabled enterprise subscriptions of the batch's enterprises and modes,
   * each with the types it takes. One statement per kind for the whole batch.
   */
  async receiversOf(tx: Queryable, scopes: readonly Scope[]): Promise<Receivers> {
    const params = [scopes.map((s) => s.enterpriseId), scopes.map((s) => s.livemode)];
    const of = `(enterprise_id, livemode) IN (SELECT * FROM unnest($1::text[], $2::boolean[]))`;
    const endpoints = await tx.query<ReceiverRow>(
      `SELECT id, enterprise_id, livemode, events FROM webhook_endpoints WHERE ${of} AND status <> 'disabled'`,
      params,
    );
    const subscriptions = await tx.query<ReceiverRow>(
      `SELECT id, enterprise_id, livemode, events FROM enterprise_subscriptions WHERE ${of} AND enabled`,
      params,
    );
    return { endpoints: endpoints.rows.map(receiverOf), subscriptions: subscriptions.rows.map(receiverOf) };
  }

  /**
   * One delivery per (event, target), in the caller's transaction; idempotent per (event,
   * endpoint, subscription or session): a second call inserts nothing, as the row's id is
   * derived from both (domain/delivery-id.ts) and the primary key refuses it. Every kind of
   * target in one statement. Wakes the workers at commit when it created any. Returns how
   * many were created.
   */
  async insertDeliveries(tx: Queryable, deliveries: readonly NewDelivery[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    const of = (column: TargetColumn) =>
      deliveries.map((d) => (d.target.column === column ? d.target.id : null));
    // The workers' wake-up rides in the same statement (sent at commit, only if rows were made).
    const { rows } = await tx.query<{ created: number }>(
      `WITH made AS (
       INSERT INTO webhook_deliveries (id, endpoint_id, subscription_id, session_id, enterprise_id, livemode,
         event_id, event_type, body, max_attempts, next_attempt_at)
       SELECT d.id, d.endpoint_id, d.subscription_id, d.session_id, d.enterprise_id, d.livemode, d.event_id,
         d.type, d.body, $1, now()
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[],
         $9::text[], $10::text[])
         AS d (id, endpoint_id, subscription_id, session_id, enterprise_id, livemode, event_id, type, body)
       ON CONFLICT (id) DO NOTHING
       RETURNING 1
     )
     SELECT n::int AS created, CASE WHEN n > 0 THEN pg_notify('${WAKE_CHANNEL}', '') END
     FROM (SELECT count(*) AS n FROM made) AS c`,
      [
        this.maxAttempts,
        deliveries.map((d) => deliveryIdFor(d.target.id, d.event.id)),
        of('endpoint_id'),
        of('subscription_id'),
        of('session_id'),
        deliveries.map((d) => d.event.enterprise_id),
        deliveries.map((d) => d.event.livemode),
        deliveries.map((d) => d.event.id),
        deliveries.map((d) => d.target.type),
        deliveries.map((d) => d.target.body),
      ],
    );
    return rows[0]!.created;
  }

  /**
   * Claims up to `limit` due attempts: each claimed row gets attempts + 1, a fresh claim
   * token and a lease (next_attempt_at = now + leaseMs), and its attempt is logged as
   * started — all in one statement. A worker that dies mid-attempt leaves the lease to run
   * out; the next claim is then the next attempt number, so no number is ever sent twice
   * (and an attempt whose outcome was never recorded does not use up the last one).
   *
   * No endpoint or subscription gets more than `perTarget` attempts in flight, counted over
   * every replica (rows whose lease runs): a target at its cap is skipped, so a slow receiver
   * holds at most `perTarget` attempts while every other target's due rows are claimed past
   * its backlog. Two replicas claiming in the same instant may each fill the slots left.
   */
  async claimDue(limit: number, leaseMs: number, perTarget: number): Promise<Claim[]> {
    const token = randomBase62(16);
    const rows = await withGenericPlan<{
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
      waited_ms: number;
    }>(this.pool, {
      // Named, with its generic plan (plan-store.ts): parsed and planned once per connection
      // (run at every claim: planning was most of a small one's cost).
      name: 'notify_claim_due',
      text: `WITH busy AS (
         SELECT COALESCE(endpoint_id, subscription_id) AS target, count(*)::int AS n
         FROM webhook_deliveries
         -- Not "session_id IS NULL": so only the small in-flight index matches, never the backlog's.
         WHERE status = 'pending' AND claim_token IS NOT NULL AND next_attempt_at > now()
           AND COALESCE(endpoint_id, subscription_id) IS NOT NULL
         GROUP BY 1
       ), skipped AS (
         SELECT target FROM busy WHERE n >= $4
         UNION ALL SELECT id FROM webhook_endpoints WHERE status = 'disabled'
         UNION ALL SELECT id FROM enterprise_subscriptions WHERE NOT enabled
       ), candidates AS (
         SELECT d.id, d.next_attempt_at, COALESCE(d.endpoint_id, d.subscription_id) AS target
         FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.session_id IS NULL AND d.next_attempt_at <= now()
           AND COALESCE(d.endpoint_id, d.subscription_id) NOT IN (SELECT target FROM skipped)
         ORDER BY d.next_attempt_at LIMIT $1 * 4
       ), slots AS (
         SELECT c.id, c.next_attempt_at,
           COALESCE(b.n, 0) + row_number() OVER (PARTITION BY c.target ORDER BY c.next_attempt_at, c.id) AS slot
         FROM candidates c LEFT JOIN busy b ON b.target = c.target
       ), due AS (
         -- Rows by primary key (= ANY of an array, not a join): the plan reused for every
         -- claim must not hash-join the whole table, however its row estimates come out.
         SELECT d.id FROM webhook_deliveries d
         WHERE d.id = ANY (ARRAY(SELECT id FROM slots WHERE slot <= $4))
           AND d.status = 'pending' AND d.next_attempt_at <= now()
         ORDER BY d.next_attempt_at LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, claim_token = $2,
           max_attempts = GREATEST(d.max_attempts, d.attempts + 1),
           next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         WHERE d.id = ANY (ARRAY(SELECT id FROM due))
         RETURNING d.id, d.attempts, d.max_attempts, d.event_id, d.event_type, d.body, d.endpoint_id,
           d.subscription_id, (EXTRACT(EPOCH FROM now() - d.created_at) * 1000)::float8 AS waited_ms
       ), logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at)
         SELECT id, attempts, now() FROM claimed
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT c.id, c.attempts, c.max_attempts, c.event_id, c.event_type, c.body, c.endpoint_id, c.waited_ms,
         COALESCE(e.url, s.url) AS url, COALESCE(e.secret_enc, s.secret_enc) AS secret_enc,
         CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_enc END AS previous_secret_enc
       FROM claimed c
       LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
       LEFT JOIN enterprise_subscriptions s ON s.id = c.subscription_id`,
      values: [limit, token, leaseMs, perTarget],
    });
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
      waitedMs: r.waited_ms,
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
   * Records an attempt's outcome and moves the delivery to \`next\` (outcomes-store.ts).
   * Returns the delivery's new status, or null for a stale claim.
   */
  record(
    claim: Claim,
    outcome: Outcome,
    next: { status: DeliveryStatus; waitS: number | null },
  ): Promise<DeliveryStatus | null> {
    return recordOutcome(this.pool, this.health, claim, outcome, next);
  }

  /** Records successful attempts, many in one statement (outcomes-store.ts); the ids moved. */
  recordSucceeded(items: readonly Succeeded[]): Promise<Set<string>> {
    return recordSucceeded(this.pool, items);
  }

  /** Deliveries waiting for an attempt, and those of them already due (metrics: the backlog). */
  async backlog(): Promise<{ pending: number; due: number }> {
    // Two halves, each matching a partial index (claimable; listen sessions' pending rows):
    // there is no index of every pending row any more (0202), so one count would scan the table.
    const { rows } = await this.pool.query<{ pending: number; due: number }>(
      `SELECT sum(pending)::int AS pending, sum(due)::int AS due FROM (
         SELECT count(*) AS pending, count(*) FILTER (WHERE next_attempt_at <= now()) AS due
         FROM webhook_deliveries WHERE status = 'pending' AND session_id IS NULL
         UNION ALL
         SELECT count(*), count(*) FILTER (WHERE next_attempt_at <= now())
         FROM webhook_deliveries WHERE status = 'pending' AND session_id IS NOT NULL) AS halves`,
    );
    return rows[0] ?? { pending: 0, due: 0 };
  }

  /** A page of one endpoint's (or subscription's, or session's) deliveries, newest first. */
  async list(
    scope: Scope,
    endpointId: string,
    q: { page: number; limit: number; status?: DeliveryStatus },
    column: TargetColumn = 'endpoint_id',
  ): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
    const { rows } = await this.pool.query<DeliveryRow & { total: number }>(
      `SELECT ${DELIVERY_COLUMNS}, count(*) OVER ()::int AS total FROM webhook_deliveries
       WHERE ${column} = $1 AND enterprise_id = $2 AND livemode = $3 AND ($4::text IS NULL OR status = $4)
       ORDER BY created_at DESC, id LIMIT $5 OFFSET $6`,
      [endpointId, scope.enterpriseId, scope.livemode, q.status ?? null, q.limit, (q.page - 1) * q.limit],
    );
    const logs = await attemptsOf(
      this.pool,
      rows.map((r) => r.id),
    );
    return {
      deliveries: rows.map((r) => deliveryFromRow(r, logs.get(r.id) ?? [])),
      total: rows[0]?.total ?? 0,
    };
  }

  async get(
    scope: Scope,
    endpointId: string,
    id: string,
    column: TargetColumn = 'endpoint_id',
  ): Promise<DeliveryRecord> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE id = $1 AND ${column} = $2 AND enterprise_id = $3 AND livemode = $4`,
      [id, endpointId, scope.enterpriseId, scope.livemode],
    );
    if (!rows[0]) throw notFound('delivery', id);
    const logs = await attemptsOf(this.pool, [id]);
    return deliveryFromRow(rows[0], logs.get(id) ?? []);
  }

  /**
   * Schedules an attempt now. A finished delivery (succeeded or failed) gets exactly one more
   * attempt (a replay); a pending one has its next attempt moved to now. Refused while an
   * attempt is in flight. One rule for an endpoint's and a subscription's delivery: the
   * worker signs each attempt as its kind (column) wants.
   */
  async retryNow(
    scope: Scope,
    targetId: string,
    id: string,
    column: 'endpoint_id' | 'subscription_id' = 'endpoint_id',
  ): Promise<DeliveryRecord> {
    const current = await this.get(scope, targetId, id, column);
    if (current.inFlight)
      throw new HallmarkError('resource_locked', {
        message: 'An attempt of this delivery is in flight; retry later.',
      });
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_deliveries SET
         max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempts + 1 END,
         status = 'pending', next_attempt_at = now()
       WHERE id = $1 AND ${column} = $2 AND NOT (claim_token IS NOT NULL AND next_attempt_at > now())`,
      [id, targetId],
    );
    if (!rowCount)
      throw new HallmarkError('resource_locked', {
        message: 'An attempt of this delivery is in flight; retry later.',
      });
    await this.pool.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
    return this.get(scope, targetId, id, column);
  }

  /** Queues one delivery of a synthetic event (`body`) to one endpoint or subscription. */
  async enqueueTest(
    scope: Scope,
    endpointId: string,
    event: { id: string; type: string },
    body: string,
    column: 'endpoint_id' | 'subscription_id' = 'endpoint_id',
  ): Promise<DeliveryRecord> {
    const id = newId('delivery');
    await this.pool.query(
      `INSERT INTO webhook_deliveries (id, ${column}, enterprise_id, livemode, event_id, event_type, body,
         max_attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())`,
      [id, endpointId, scope.enterpriseId, scope.livemode, event.id, event.type, body, this.maxAttempts],
    );
    await this.pool.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
    return this.get(scope, endpointId, id, column);
  }
}
