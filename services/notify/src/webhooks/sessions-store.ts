// All SQL of listen sessions (`hallmark listen`): a session is a subscription of its own
// (lsn_…, its own secret and event filter) whose deliveries are rows of webhook_deliveries
// like any other, claimed by the process holding its stream instead of the POSTing worker.
// A session ends when its listener goes; what it did not get is recorded as failed.
import {
  HallmarkError,
  newId,
  notFound,
  transaction,
  type Encryptor,
  type Pool,
  type Queryable,
  type RetentionRule,
} from '@hallmark/kit';
import { receiverOf, type Receiver, type ReceiverRow } from './deliveries-store.js';
import type { Claim } from './domain/delivery.js';
import type { Scope } from './store.js';

export interface ListenSessionRecord {
  id: string;
  livemode: boolean;
  /** Empty: every type. */
  events: string[];
  createdAt: Date;
}

/** How long a session may go unseen before a sweep ends it (its process died). */
export const SESSION_STALE_S = 60;

/**
 * Retention of ended listen sessions (a developer's `hallmark listen`): a week after they end;
 * an open one stays. Its deliveries go with it (ON DELETE CASCADE), finished ones long before.
 */
export const SESSION_RETENTION: RetentionRule = {
  table: 'listen_sessions',
  key: 'id',
  ageColumn: 'ended_at',
  defaultDays: 7,
};

/** Default cap of concurrently open sessions per enterprise (HALLMARK_LISTEN_MAX_SESSIONS). */
export const DEFAULT_MAX_OPEN_SESSIONS = 10;

/**
 * The refusal past the cap. A slot frees when a listener disconnects (at once) or, for one
 * whose process died, once it goes unseen for SESSION_STALE_S: the longest a retry waits.
 */
const tooManySessions = (max: number) =>
  new HallmarkError('concurrent_limit_exceeded', {
    message: `This enterprise already has ${max} open listen sessions; close one (or wait for an abandoned one to lapse) and try again.`,
    extras: { retry_after: SESSION_STALE_S },
  });

export class SessionsStore {
  constructor(
    private readonly pool: Pool,
    private readonly encryptor: Encryptor,
    /** Open sessions per enterprise (both modes together) before the next is refused. */
    private readonly maxOpen = DEFAULT_MAX_OPEN_SESSIONS,
  ) {}

  /**
   * Opens a session unless the enterprise already has `maxOpen` live ones (open and seen
   * within SESSION_STALE_S, so one whose process died stops counting without waiting for the
   * sweep). Count and insert run under a per-enterprise advisory lock, so parallel opens
   * cannot all see the last free slot.
   */
  async open(
    scope: Scope,
    input: { events: string[]; secret: string; actorId: string | null },
  ): Promise<ListenSessionRecord> {
    return transaction(this.pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('listen_sessions:' || $1, 0))", [
        scope.enterpriseId,
      ]);
      const { rows: live } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM listen_sessions
         WHERE enterprise_id = $1 AND ended_at IS NULL AND seen_at > now() - make_interval(secs => $2)`,
        [scope.enterpriseId, SESSION_STALE_S],
      );
      if (live[0]!.n >= this.maxOpen) throw tooManySessions(this.maxOpen);
      const { rows } = await tx.query<{
        id: string;
        livemode: boolean;
        events: string[];
        created_at: Date;
      }>(
        `INSERT INTO listen_sessions (id, enterprise_id, livemode, events, secret_enc, actor_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, livemode, events, created_at`,
        [
          newId('listenSession'),
          scope.enterpriseId,
          scope.livemode,
          input.events,
          this.encryptor.encrypt(input.secret),
          input.actorId,
        ],
      );
      const r = rows[0]!;
      return { id: r.id, livemode: r.livemode, events: r.events, createdAt: r.created_at };
    });
  }

  /** A session of the enterprise and mode (open or ended); another's is not found. */
  async get(scope: Scope, id: string): Promise<ListenSessionRecord> {
    const { rows } = await this.pool.query<{
      id: string;
      livemode: boolean;
      events: string[];
      created_at: Date;
    }>(
      `SELECT id, livemode, events, created_at FROM listen_sessions
       WHERE id = $1 AND enterprise_id = $2 AND livemode = $3`,
      [id, scope.enterpriseId, scope.livemode],
    );
    const r = rows[0];
    if (!r) throw notFound('listen session', id);
    return { id: r.id, livemode: r.livemode, events: r.events, createdAt: r.created_at };
  }

  /**
   * The open, recently seen sessions of the batch's enterprises and modes, with the types
   * each takes (empty: every type), in fan-out's transaction.
   */
  async openFor(tx: Queryable, scopes: readonly Scope[]): Promise<Receiver[]> {
    const { rows } = await tx.query<ReceiverRow>(
      `SELECT id, enterprise_id, livemode, events FROM listen_sessions
       WHERE (enterprise_id, livemode) IN (SELECT * FROM unnest($1::text[], $2::boolean[]))
         AND ended_at IS NULL AND seen_at > now() - make_interval(secs => $3)`,
      [scopes.map((s) => s.enterpriseId), scopes.map((s) => s.livemode), SESSION_STALE_S],
    );
    return rows.map(receiverOf);
  }

  async touch(id: string): Promise<void> {
    await this.pool.query('UPDATE listen_sessions SET seen_at = now() WHERE id = $1 AND ended_at IS NULL', [
      id,
    ]);
  }

  /**
   * Claims the session's pending deliveries, oldest first, under a lease like the worker's
   * claim (attempt + 1, logged as started), so an attempt is never written twice.
   */
  async claim(sessionId: string, limit: number, leaseMs: number): Promise<Claim[]> {
    const token = newId('delivery');
    const { rows } = await this.pool.query<{
      id: string;
      attempts: number;
      max_attempts: number;
      event_id: string;
      event_type: string;
      body: string;
    }>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE session_id = $1 AND status = 'pending' AND next_attempt_at <= now()
         ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, claim_token = $3,
           max_attempts = GREATEST(d.max_attempts, d.attempts + 1),
           next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.attempts, d.max_attempts, d.event_id, d.event_type, d.body, d.created_at
       ), logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at)
         SELECT id, attempts, now() FROM claimed ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT id, attempts, max_attempts, event_id, event_type, body FROM claimed ORDER BY created_at, id`,
      [sessionId, limit, token, leaseMs],
    );
    return rows.map((r) => ({
      id: r.id,
      token,
      attempt: r.attempts,
      maxAttempts: r.max_attempts,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      url: '',
      kind: 'session',
      secrets: [],
    }));
  }

  /** Ends the session; its undelivered deliveries become failed, each with an attempt saying why. */
  async end(id: string, reason: string): Promise<void> {
    await this.pool.query(
      'UPDATE listen_sessions SET ended_at = now(), end_reason = $2 WHERE id = $1 AND ended_at IS NULL',
      [id, reason],
    );
    await this.failUndelivered([id]);
  }

  /**
   * Ends sessions nobody has seen for SESSION_STALE_S (their process died) and fails what
   * any ended session still has pending (a fan-out that committed just after the end).
   */
  async sweep(): Promise<number> {
    await this.pool.query(
      `UPDATE listen_sessions SET ended_at = now(), end_reason = 'listener lost (no heartbeat)'
       WHERE ended_at IS NULL AND seen_at < now() - make_interval(secs => $1)`,
      [SESSION_STALE_S],
    );
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT DISTINCT s.id FROM listen_sessions s JOIN webhook_deliveries d ON d.session_id = s.id
       WHERE s.ended_at IS NOT NULL AND d.status = 'pending'`,
    );
    return rows.length === 0 ? 0 : this.failUndelivered(rows.map((r) => r.id));
  }

  private async failUndelivered(ids: string[]): Promise<number> {
    const { rowCount } = await this.pool.query(
      `WITH f AS (
         UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claim_token = NULL,
           attempts = attempts + 1, max_attempts = GREATEST(max_attempts, attempts + 1)
         WHERE session_id = ANY ($1) AND status = 'pending'
         RETURNING id, attempts
       )
       INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, latency_ms, error)
       SELECT id, attempts, now(), 0, 'no listener connected: the listen session had ended' FROM f
       ON CONFLICT (delivery_id, attempt) DO NOTHING`,
      [ids],
    );
    return rowCount ?? 0;
  }

  /** The session's secret, to sign each delivery as it is written. */
  async secretOf(id: string): Promise<string> {
    const { rows } = await this.pool.query<{ secret_enc: string }>(
      'SELECT secret_enc FROM listen_sessions WHERE id = $1',
      [id],
    );
    return this.encryptor.decrypt(rows[0]!.secret_enc);
  }
}
