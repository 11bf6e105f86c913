// Transactional outbox. `recordEvent` writes the event in the caller's transaction, so
// the state change and its event commit together or not at all. `OutboxRelay` publishes
// committed events to JetStream with message id = event id (JetStream drops duplicates
// inside its window; consumers dedupe by id beyond it) and only then marks them sent, so
// a relay killed between publish and mark re-publishes, and nothing is ever lost.
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { currentRequestId, REQUEST_ID_HEADER } from './context.js';
import type { Pool, Queryable } from './db.js';
import {
  EVENT_SCHEMAS,
  type EventData,
  type EventEnvelope,
  type EventInput,
  type EventType,
} from './events.js';
import { newId } from './ids.js';
import { counter, gaugeFrom } from './metrics.js';
import { PgListener } from './pg-listener.js';
import { contextFrom, currentTraceparent, inSpan, SpanKind, traceHeaders, tracing } from './telemetry.js';

/**
 * The envelope `recordEvent(s)` and `outboxBatch` write (id, schema-checked data, request id).
 */
export function envelopeOf<T extends EventType>(source: string, input: EventInput<T>): EventEnvelope<T> {
  return {
    id: input.id ?? newId('event'),
    type: input.type,
    source,
    occurred_at: new Date().toISOString(),
    enterprise_id: input.enterpriseId ?? null,
    livemode: input.livemode ?? true,
    request_id: currentRequestId() ?? null,
    data: EVENT_SCHEMAS[input.type].parse(input.data) as EventData<T>,
  };
}

export async function recordEvent<T extends EventType>(
  tx: Queryable,
  source: string,
  input: EventInput<T>,
): Promise<EventEnvelope<T>> {
  const [envelope] = await recordEvents(tx, source, [input]);
  return envelope as EventEnvelope<T>;
}

/**
 * Writes several events in one statement (one round trip, plus the wake-up NOTIFY in the
 * same statement) — for hot paths that emit more than one event per change.
 */
export async function recordEvents(
  tx: Queryable,
  source: string,
  inputs: EventInput<EventType>[],
): Promise<EventEnvelope[]> {
  const batch = outboxBatch(source, inputs);
  await tx.query(
    `WITH ins AS (${outboxInsert('$1')})
     SELECT ${OUTBOX_WAKE}, (SELECT count(*) FROM ins)`,
    [batch.param],
  );
  return batch.envelopes;
}

/** Events ready for `outboxInsert`: their envelopes, and the one JSON parameter that carries them. */
export interface OutboxBatch {
  envelopes: EventEnvelope[];
  param: string;
}

export function outboxBatch(source: string, inputs: EventInput<EventType>[]): OutboxBatch {
  const envelopes = inputs.map((input) => envelopeOf(source, input));
  // The trace context of the change rides beside each envelope (`_h`, the row's `headers`
  // column), never inside the payload subscribers see.
  const traceparent = currentTraceparent();
  const rows = traceparent ? envelopes.map((e) => ({ ...e, _h: { traceparent } })) : envelopes;
  return { envelopes, param: JSON.stringify(rows) };
}

/**
 * The one outbox write: an `INSERT … RETURNING 1` to put in a statement as a CTE, writing
 * the envelopes of an `outboxBatch` passed as `param` (e.g. `'$12'`). With `guard`, the name
 * of a CTE of the same statement returning at most one row, the events are written only when
 * that CTE returned its row — for a statement that commits a change and its events together
 * only if its conditional UPDATE matched (vouchers' one-statement redemption). The subject is
 * `subjectFor(source, type)`, computed from the envelope. Put `OUTBOX_WAKE` in the statement's
 * final SELECT so the relay wakes at commit.
 */
export function outboxInsert(param: string, guard?: string): string {
  return `INSERT INTO outbox (id, subject, type, payload, headers)
    SELECT e->>'id', 'hallmark.' || (e->>'source') || '.' || (e->>'type'), e->>'type', e - '_h',
      COALESCE(e->'_h', '{}'::jsonb)
    FROM ${guard ? `${guard}, ` : ''}jsonb_array_elements(${param}::jsonb) AS e
    RETURNING 1`;
}

const OUTBOX_CHANNEL = 'hallmark_outbox';

/** Wakes the relay (LISTEN hallmark_outbox) when the statement that holds it commits. */
export const OUTBOX_WAKE = `pg_notify('${OUTBOX_CHANNEL}', '')`;

export interface RelayOptions {
  pool: Pool;
  js: JetStreamClient;
  log: Logger;
  batchSize?: number;
  pollIntervalMs?: number;
  /**
   * How long a woken relay waits before it reads (default 5 ms), so the commits of a burst
   * go out in one batch: its BEGIN, SELECT, UPDATE and COMMIT once, not per commit.
   */
  lingerMs?: number;
}

export class OutboxRelay {
  private running = false;
  private wake: (() => void) | null = null;
  /** A commit was announced since the last batch began (its rows may not be in that batch). */
  private notified = false;
  private loopDone: Promise<void> | null = null;
  /** New outbox rows wake the relay (it polls as well, and while the LISTEN is lost). */
  private readonly listener: PgListener;
  private unobserve: (() => void) | null = null;

  constructor(private readonly opts: RelayOptions) {
    this.listener = new PgListener({
      pool: opts.pool,
      channel: OUTBOX_CHANNEL,
      log: opts.log,
      onNotify: () => {
        this.notified = true;
        this.wake?.();
      },
    });
  }

  async start(): Promise<void> {
    this.running = true;
    this.unobserve = observeOutbox(this.opts.pool);
    await this.listener.start();
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unobserve?.();
    this.wake?.();
    await this.loopDone;
    await this.listener.stop();
  }

  private async loop(): Promise<void> {
    const interval = this.opts.pollIntervalMs ?? 1000;
    const linger = this.opts.lingerMs ?? 5;
    const batchSize = this.opts.batchSize ?? 200;
    while (this.running) {
      let published = 0;
      this.notified = false;
      try {
        published = await this.publishBatch();
      } catch (err) {
        this.opts.log.warn({ err }, 'outbox relay: publish failed; will retry');
        this.notified = false; // retried on the next NOTIFY or poll, not at once
      }
      // A full batch may have more behind it; otherwise wait for the next commit's NOTIFY
      // (or the poll), unless one came while this batch ran. No empty read after each batch.
      if (published >= batchSize) continue;
      if (!this.notified) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, interval);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
      if (this.running && linger > 0) await new Promise((r) => setTimeout(r, linger));
    }
  }

  /** Publishes one batch; returns how many were published. Exposed for tests. */
  async publishBatch(): Promise<number> {
    const client = await this.opts.pool.connect();
    try {
      await client.query('BEGIN');
      // SKIP LOCKED lets several replicas relay in parallel without double work.
      const { rows } = await client.query<{
        seq: number;
        id: string;
        subject: string;
        payload: EventEnvelope;
        headers: Record<string, string> | null;
      }>(
        `SELECT seq, id, subject, payload, headers FROM outbox WHERE published_at IS NULL
         ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.opts.batchSize ?? 200],
      );
      // Published together and acknowledged together: messages leave in order on one
      // connection, so the stream keeps the outbox order, and one slow ack no longer
      // serialises the batch.
      await Promise.all(
        rows.map((row) => {
          const publish = () => {
            const h = natsHeaders();
            if (row.payload.request_id) h.set(REQUEST_ID_HEADER, row.payload.request_id);
            h.set('hallmark-event-type', row.payload.type);
            // The producer span's context (child of the change that wrote the row) goes on.
            if (tracing) for (const [k, v] of Object.entries(traceHeaders())) h.set(k, v);
            return this.opts.js.publish(row.subject, JSON.stringify(row.payload), {
              msgID: row.id,
              headers: h,
            });
          };
          if (!tracing || !row.headers?.traceparent) return publish();
          return inSpan(
            `${row.subject} publish`,
            {
              kind: SpanKind.PRODUCER,
              parent: contextFrom(row.headers),
              attributes: { 'messaging.system': 'nats', 'messaging.destination.name': row.subject },
            },
            publish,
          );
        }),
      );
      if (rows.length > 0) published().inc(rows.length);
      if (rows.length > 0) {
        await client.query('UPDATE outbox SET published_at = now() WHERE seq = ANY($1)', [
          rows.map((r) => r.seq),
        ]);
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

const published = () =>
  counter('hallmark_outbox_published_total', 'Events the outbox relay published to NATS');

/** Outbox backlog (unpublished rows) and lag (age of the oldest unpublished row), read at scrape. */
function observeOutbox(pool: Pool): () => void {
  published();
  let last: Promise<{ backlog: number; lag: number }> | null = null;
  // One query serves both gauges of one scrape.
  const read = () =>
    (last ??= pool
      .query<{ backlog: number; lag: number }>(
        `SELECT count(*)::int AS backlog,
                COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS lag
         FROM outbox WHERE published_at IS NULL`,
      )
      .then((r) => r.rows[0]!)
      .finally(() => setTimeout(() => (last = null), 100)));
  const a = gaugeFrom(
    'hallmark_outbox_backlog',
    'Outbox rows not yet published',
    [],
    async () => [{ labels: {}, value: (await read()).backlog }],
    { shared: true },
  );
  const b = gaugeFrom(
    'hallmark_outbox_lag_seconds',
    'Age of the oldest unpublished outbox row (0 when none)',
    [],
    async () => [{ labels: {}, value: (await read()).lag }],
    { shared: true },
  );
  return () => {
    a();
    b();
  };
}
