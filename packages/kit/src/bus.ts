// NATS JetStream: connection, the one stream, and the durable idempotent consumer.
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER, requestIdFrom, runWithContext } from './context.js';
import { transaction, type Pool, type PoolClient } from './db.js';
import { STREAM_NAME, STREAM_SUBJECTS, type EventEnvelope } from './events.js';

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  close(): Promise<void>;
}

const NANOS_PER_MS = 1_000_000;

export async function connectBus(url: string, name: string): Promise<Bus> {
  const nc = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const jsm = await jetstreamManager(nc);
  const config = {
    name: STREAM_NAME,
    subjects: STREAM_SUBJECTS,
    duplicate_window: 10 * 60 * 1000 * NANOS_PER_MS,
    max_age: 7 * 24 * 3600 * 1000 * NANOS_PER_MS,
  };
  try {
    await jsm.streams.info(STREAM_NAME);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (err) {
      // Another service created it at the same moment.
      if (!/already in use|exists/i.test((err as Error).message)) throw err;
    }
  }
  return { nc, js: jetstream(nc), close: () => nc.drain() };
}

export interface ConsumerOptions {
  bus: Bus;
  /** Durable name: one per consuming service and purpose; replicas share it. */
  durable: string;
  /** Subject filter, e.g. `hallmark.keys.>`. */
  filter: string;
  pool: Pool;
  log: Logger;
  /** Runs inside the transaction that records the event id, so effects and dedupe commit together. */
  handle: (event: EventEnvelope, tx: PoolClient) => Promise<void>;
  ackWaitMs?: number;
  maxDeliver?: number;
}

export interface Consumer {
  stop(): Promise<void>;
}

/**
 * A durable consumer that handles each event id at most once per consumer name: the id is
 * inserted into `processed_events` in the handler's own transaction. Redelivery after a
 * crash finds the id and only acks. A failing handler is retried with back-off.
 */
export async function startConsumer(opts: ConsumerOptions): Promise<Consumer> {
  const jsm = await jetstreamManager(opts.bus.nc);
  const cfg = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: opts.filter,
    ack_wait: (opts.ackWaitMs ?? 30_000) * NANOS_PER_MS,
    max_deliver: opts.maxDeliver ?? -1,
  };
  try {
    await jsm.consumers.info(STREAM_NAME, opts.durable);
    await jsm.consumers.update(STREAM_NAME, opts.durable, {
      ack_wait: cfg.ack_wait,
      max_deliver: cfg.max_deliver,
    });
  } catch {
    await jsm.consumers.add(STREAM_NAME, cfg);
  }
  const consumer = await opts.bus.js.consumers.get(STREAM_NAME, opts.durable);
  const messages = await consumer.consume({ max_messages: 256 });
  const done = (async () => {
    for await (const msg of messages) await handleOne(opts, msg);
  })();
  return {
    async stop() {
      await messages.close();
      await done;
    },
  };
}

async function handleOne(opts: ConsumerOptions, msg: JsMsg): Promise<void> {
  let event: EventEnvelope;
  try {
    event = msg.json<EventEnvelope>();
  } catch {
    opts.log.error({ subject: msg.subject, seq: msg.seq }, 'consumer: undecodable event; terminating it');
    msg.term();
    return;
  }
  const requestId = requestIdFrom(msg.headers?.get(REQUEST_ID_HEADER));
  await runWithContext({ requestId }, async () => {
    try {
      await transaction(opts.pool, async (tx) => {
        const { rowCount } = await tx.query(
          'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [opts.durable, event.id],
        );
        if (rowCount === 0) return; // seen before: a redelivery or a relay re-publish
        await opts.handle(event, tx);
      });
      msg.ack();
    } catch (err) {
      const delayMs = Math.min(30_000, 500 * 2 ** Math.min(msg.info.deliveryCount, 6));
      opts.log.warn(
        { err, event_id: event.id, type: event.type, delayMs },
        'consumer: handler failed; will retry',
      );
      msg.nak(delayMs);
    }
  });
}
