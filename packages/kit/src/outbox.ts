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
  return { envelopes, param: JSON.stringify(envelopes) };
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
  return `INSERT INTO outbox (id, subject, type, payload)
    SELECT e->>'id', 'hallmark.' || (e->>'source') || '.' || (e->>'type'), e->>'type', e
    FROM ${guard ? `${guard}, ` : ''}jsonb_array_elements(${param}::jsonb) AS e
    RETURNING 1`;
}

/** Wakes the relay (LISTEN hallmark_outbox) when the statement that holds it commits. */
export const OUTBOX_WAKE = "pg_notify('hallmark_outbox', '')";

export interface RelayOptions {
  pool: Pool;
  js: JetStreamClient;
  log: Logger;
  batchSize?: number;
  pollIntervalMs?: number;
}

export class OutboxRelay {
  private running = false;
  private wake: (() => void) | null = null;
  private loopDone: Promise<void> | null = null;
  private listener: import('pg').PoolClient | null = null;

  constructor(private readonly opts: RelayOptions) {}

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loopDone = this.loop();
  }

  /**
   * Holds one connection that LISTENs for new outbox rows. When the server drops it (a
   * restart, an operator terminating connections) it is released and the loop opens a new
   * one; meanwhile the relay polls. An unhandled 'error' on it would end the process.
   */
  private async listen(): Promise<void> {
    const client = await this.opts.pool.connect();
    client.on('error', (err) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.opts.log.warn({ err }, 'outbox relay: LISTEN connection lost; polling until it is back');
      client.release(err);
    });
    try {
      await client.query('LISTEN hallmark_outbox');
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    client.on('notification', () => this.wake?.());
    this.listener = client;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
    if (this.listener) {
      await this.listener.query('UNLISTEN hallmark_outbox').catch(() => undefined);
      this.listener.release();
      this.listener = null;
    }
  }

  private async loop(): Promise<void> {
    const interval = this.opts.pollIntervalMs ?? 1000;
    while (this.running) {
      let published = 0;
      try {
        if (!this.listener) await this.listen();
        published = await this.publishBatch();
      } catch (err) {
        this.opts.log.warn({ err }, 'outbox relay: publish failed; will retry');
      }
      if (published > 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
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
      }>(
        `SELECT seq, id, subject, payload FROM outbox WHERE published_at IS NULL
         ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.opts.batchSize ?? 200],
      );
      // Published together and acknowledged together: messages leave in order on one
      // connection, so the stream keeps the outbox order, and one slow ack no longer
      // serialises the batch.
      await Promise.all(
        rows.map((row) => {
          const h = natsHeaders();
          if (row.payload.request_id) h.set(REQUEST_ID_HEADER, row.payload.request_id);
          h.set('hallmark-event-type', row.payload.type);
          return this.opts.js.publish(row.subject, JSON.stringify(row.payload), {
            msgID: row.id,
            headers: h,
          });
        }),
      );
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
