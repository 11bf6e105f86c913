// The listen sessions this process holds a stream for. Each session's loop claims its pending
// deliveries (leased, like the POSTing worker), signs each as its endpoint or subscription
// would be signed, writes it to the stream and records the attempt. Woken by the same NOTIFY
// the worker hears, else polls; refreshes the session's heartbeat; ends the session when its
// stream goes (a database that is briefly away does not end it: the loop waits and claims again). A sweep (every replica) ends sessions whose process died and fails what they
// still had pending, so nothing waits for a listener that will not come.
import { PgListener, type Logger, type Pool } from '@hallmark/kit';
import type { DeliveriesStore } from '../deliveries-store.js';
import { WAKE_CHANNEL } from '../deliveries-store.js';
import { isVersionedType } from '../domain/events.js';
import { attemptHeaders } from '../domain/signing.js';
import { USER_AGENT } from '../sender.js';
import type { SessionsStore } from '../sessions-store.js';

export interface StreamedEvent {
  delivery_id: string;
  event_id: string;
  event_type: string;
  body: string;
  headers: Record<string, string>;
  attempt: number;
}

export interface HubOptions {
  pollIntervalMs?: number;
  heartbeatMs?: number;
  sweepIntervalMs?: number;
}

export class ListenHub {
  private readonly wakers = new Set<() => void>();
  private readonly open = new Map<string, AbortController>();
  /** Held while this process serves a session: the NOTIFY of new work wakes every session. */
  private listener: PgListener | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly pollIntervalMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly sessions: SessionsStore,
    private readonly deliveries: DeliveriesStore,
    private readonly log: Logger,
    private readonly opts: HubOptions = {},
  ) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.heartbeatMs = opts.heartbeatMs ?? 15_000;
  }

  async start(): Promise<void> {
    this.sweeper = setInterval(() => {
      this.sessions.sweep().catch((err) => this.log.warn({ err }, 'listen hub: sweep failed'));
    }, this.opts.sweepIntervalMs ?? 30_000);
    this.sweeper.unref();
  }

  /** Ends every stream this process holds (their listeners reconnect to another replica). */
  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const c of this.open.values()) c.abort();
    await this.release();
  }

  /**
   * Serves one session until `signal` aborts (the caller went) or the hub stops, then ends
   * the session. `write` hands one event to the stream.
   */
  async serve(
    sessionId: string,
    secret: string,
    write: (e: StreamedEvent) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const local = new AbortController();
    const stop = () => local.abort();
    signal.addEventListener('abort', stop);
    this.open.set(sessionId, local);
    await this.listen();
    let lastBeat = Date.now();
    try {
      while (!local.signal.aborted) {
        const claims = await this.claim(sessionId);
        if (claims === null) {
          await this.sleep(local.signal);
          continue;
        }
        for (const c of claims) {
          if (local.signal.aborted) break;
          const started = performance.now();
          const scheme = isVersionedType(c.eventType) ? 'versioned' : 'enterprise';
          const headers = {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            ...attemptHeaders({ ...c, secrets: [secret] }, scheme, new Date()),
          };
          await write({
            delivery_id: c.id,
            event_id: c.eventId,
            event_type: c.eventType,
            body: c.body,
            headers,
            attempt: c.attempt,
          });
          if (local.signal.aborted) break; // not known to have reached anyone: end() fails it
          const outcome = { statusCode: null, latencyMs: performance.now() - started, error: null };
          // Not recorded (the database is away): the lease runs out and the event is streamed
          // again — at least once, as every webhook delivery is.
          await this.deliveries
            .record(c, outcome, { status: 'succeeded', waitS: null })
            .catch((err) =>
              this.log.warn({ err, session: sessionId }, 'listen hub: an attempt was not recorded'),
            );
        }
        if (Date.now() - lastBeat > this.heartbeatMs) {
          lastBeat = Date.now();
          await this.sessions
            .touch(sessionId)
            .catch((err) => this.log.warn({ err, session: sessionId }, 'listen hub: heartbeat not written'));
        }
        if (claims.length === 50) continue;
        await this.sleep(local.signal);
      }
    } finally {
      signal.removeEventListener('abort', stop);
      this.open.delete(sessionId);
      await this.sessions
        .end(sessionId, signal.aborted ? 'listener disconnected' : 'server stopped')
        .catch((err) => this.log.warn({ err, session: sessionId }, 'listen hub: could not end a session'));
      if (this.open.size === 0) await this.release();
    }
  }

  /**
   * The session's due deliveries, or null when the database could not answer: a failover or a
   * dropped connection does not end the listener's stream — the loop waits and claims again,
   * and the stream stays open meanwhile (its pings go on).
   */
  private async claim(sessionId: string) {
    try {
      return await this.sessions.claim(sessionId, 50, 30_000);
    } catch (err) {
      this.log.warn({ err, session: sessionId }, 'listen hub: claim failed; retrying');
      return null;
    }
  }

  private sleep(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.wakers.add(done);
      signal.addEventListener('abort', done);
    });
  }

  private listen(): Promise<void> {
    this.listener ??= new PgListener({
      pool: this.pool,
      channel: WAKE_CHANNEL,
      log: this.log,
      onNotify: () => {
        for (const wake of [...this.wakers]) wake();
      },
    });
    return this.listener.start();
  }

  private async release(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    await listener?.stop();
  }
}
