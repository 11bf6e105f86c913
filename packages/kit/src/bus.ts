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
import { countDeadLettered, parkMessage } from './dlq.js';
import { transaction, type Pool, type PoolClient } from './db.js';
import { STREAM_NAME, type EventEnvelope } from './events.js';
import { newId } from './ids.js';
import { gaugeFrom } from './metrics.js';
import { busSettings, createStream, streamConfigs } from './streams.js';
import { contextFrom, inSpan, SpanKind, tracing } from './telemetry.js';

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  close(): Promise<void>;
}

const NANOS_PER_MS = 1_000_000;

export interface ConnectOptions {
  /**
   * `create` (default): make a stream that does not exist yet (a fresh dev stack or test),
   * never change one that does; `none`: touch no stream (the `dlq` command).
   */
  streams?: 'create' | 'none';
}

/**
 * NATS_URL as a server list: a cluster's URLs comma-separated (`nats://a:4222,nats://b:4222`),
 * so a client reaches the cluster while any one server is down and fails over on its own.
 */
export function natsServers(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function connectBus(url: string, name: string, opts: ConnectOptions = {}): Promise<Bus> {
  const nc = await connect({
    servers: natsServers(url),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Without it every request (each JetStream publish waits for its ack through one) builds
    // two Error objects up front, stack traces included, in case it times out: a tenth of the
    // vouchers process's CPU under redemption load. A timeout still names its subject.
    noAsyncTraces: true,
  });
  if ((opts.streams ?? 'create') === 'create') {
    const jsm = await jetstreamManager(nc);
    for (const config of streamConfigs(busSettings())) {
      if (!(await jsm.streams.info(config.name).catch(() => null))) await createStream(jsm, config);
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
  /**
   * Deliveries before the event is parked in the dead-letter stream (HALLMARK_DLQ) and
   * terminated; default HALLMARK_NATS_MAX_DELIVER.
   */
  maxDeliver?: number;
}

export interface Consumer {
  stop(): Promise<void>;
}

/**
 * A durable consumer that handles each event id at most once per consumer name: the id is
 * inserted into `processed_events` in the handler's own transaction. Redelivery after a
 * crash finds the id and only acks. A failing handler is retried with back-off until its
 * `maxDeliver`-th delivery, which parks the event in the dead-letter stream (`dlq.ts`) with
 * the error and terminates it; an undecodable message is parked at once.
 */
export async function startConsumer(opts: ConsumerOptions): Promise<Consumer> {
  await ensureDurable(opts);
  const consumer = await opts.bus.js.consumers.get(STREAM_NAME, opts.durable);
  const messages = await consumer.consume({ max_messages: 256 });
  const unobserve = observeConsumer(opts.bus, opts.durable);
  countDeadLettered(opts.durable);
  const done = (async () => {
    for await (const msg of messages) await handleOne(opts, msg);
  })();
  return {
    async stop() {
      unobserve();
      await messages.close();
      await done;
    },
  };
}

/**
 * A durable consumer's state from the server, read at scrape time: messages pending (not yet
 * delivered), delivered but unacknowledged, and redelivered.
 */
function observeConsumer(bus: Bus, durable: string): () => void {
  let info: Promise<{ pending: number; ackPending: number; redelivered: number }> | null = null;
  const read = () =>
    (info ??= jetstreamManager(bus.nc)
      .then((jsm) => jsm.consumers.info(STREAM_NAME, durable))
      .then((i) => ({
        pending: i.num_pending,
        ackPending: i.num_ack_pending,
        redelivered: i.num_redelivered,
      }))
      .finally(() => setTimeout(() => (info = null), 100)));
  const offs = [
    gaugeFrom(
      'hallmark_nats_consumer_pending_messages',
      'JetStream messages not yet delivered to the durable consumer',
      ['consumer'],
      async () => [{ labels: { consumer: durable }, value: (await read()).pending }],
      { shared: true },
    ),
    gaugeFrom(
      'hallmark_nats_consumer_ack_pending_messages',
      'JetStream messages delivered to the durable consumer and not yet acknowledged',
      ['consumer'],
      async () => [{ labels: { consumer: durable }, value: (await read()).ackPending }],
      { shared: true },
    ),
    gaugeFrom(
      'hallmark_nats_consumer_redelivered_messages',
      'JetStream messages of the durable consumer delivered more than once and still unacknowledged',
      ['consumer'],
      async () => [{ labels: { consumer: durable }, value: (await read()).redelivered }],
      { shared: true },
    ),
  ];
  return () => offs.forEach((off) => off());
}

const maxDeliverOf = (opts: { maxDeliver?: number }) => opts.maxDeliver ?? busSettings().maxDeliver;

/**
 * Creates the durable consumer, or brings an existing one's ack wait and max deliver up to
 * date. The server's max_deliver is one more than ours: the consumer parks the message on
 * its last delivery, and a process that died while parking gets it once more to park.
 */
async function ensureDurable(opts: Omit<ConsumerOptions, 'handle'>): Promise<void> {
  const jsm = await jetstreamManager(opts.bus.nc);
  const cfg = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: opts.filter,
    ack_wait: (opts.ackWaitMs ?? 30_000) * NANOS_PER_MS,
    max_deliver: maxDeliverOf(opts) + 1,
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
}

/** Parks the message in the dead-letter stream and terminates it; naks it when NATS refuses. */
async function giveUp(opts: Omit<ConsumerOptions, 'handle'>, msg: JsMsg, err: unknown): Promise<void> {
  try {
    await parkMessage(opts.bus.js, opts.durable, msg, err, opts.log);
    msg.term();
  } catch (parkErr) {
    opts.log.error({ err: parkErr }, 'consumer: could not park a message; will retry');
    msg.nak(5000);
  }
}

async function handleOne(opts: ConsumerOptions, msg: JsMsg): Promise<void> {
  let event: EventEnvelope;
  try {
    event = msg.json<EventEnvelope>();
  } catch (err) {
    await giveUp(opts, msg, new Error(`undecodable event: ${(err as Error).message}`));
    return;
  }
  const requestId = requestIdFrom(msg.headers?.get(REQUEST_ID_HEADER));
  const traced = (fn: () => Promise<void>) =>
    tracing
      ? inSpan(
          `${msg.subject} process`,
          {
            kind: SpanKind.CONSUMER,
            parent: contextFrom(Object.fromEntries(msg.headers ?? [])),
            attributes: {
              'messaging.system': 'nats',
              'messaging.consumer.group.name': opts.durable,
              'messaging.destination.name': msg.subject,
            },
          },
          fn,
        )
      : fn();
  await runWithContext({ requestId }, () =>
    traced(async () => {
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
        if (msg.info.deliveryCount >= maxDeliverOf(opts)) {
          await giveUp(opts, msg, err);
          return;
        }
        const delayMs = Math.min(30_000, 500 * 2 ** Math.min(msg.info.deliveryCount, 6));
        opts.log.warn(
          { err, event_id: event.id, type: event.type, delayMs },
          'consumer: handler failed; will retry',
        );
        msg.nak(delayMs);
      }
    }),
  );
}

export interface BatchConsumerOptions extends Omit<ConsumerOptions, 'handle'> {
  /**
   * Runs inside the one transaction that records every id of the batch, with the events
   * whose ids were new (in delivery order; never empty), so effects and dedupe commit together.
   */
  handle: (events: EventEnvelope[], tx: PoolClient) => Promise<void>;
  /** Most messages handled in one transaction (default 100). */
  maxBatch?: number;
}

/**
 * `startConsumer`'s guarantees at a batch per transaction: takes every message already
 * received (up to `maxBatch`), records all their ids in `processed_events` in one statement
 * (`ON CONFLICT DO NOTHING RETURNING` tells which are new), runs the handler once for the new
 * ones, commits, then acks every message of the batch. A message is acked only after the
 * transaction that recorded its id committed, so a crash anywhere redelivers it and the
 * recorded id makes the redelivery a no-op. When the batch's transaction fails, its events
 * are handled again one per transaction, so one failing event is nak'ed with back-off alone
 * and never holds back the others. Waits for no one: a lone message is a batch of one.
 */
export async function startBatchConsumer(opts: BatchConsumerOptions): Promise<Consumer> {
  await ensureDurable(opts);
  const maxBatch = Math.max(1, opts.maxBatch ?? 100);
  const consumer = await opts.bus.js.consumers.get(STREAM_NAME, opts.durable);
  const messages = await consumer.consume({ max_messages: Math.max(256, 2 * maxBatch) });
  const unobserve = observeConsumer(opts.bus, opts.durable);
  countDeadLettered(opts.durable);
  const buffer: JsMsg[] = [];
  let ended = false;
  // One wake-up slot each: the handler loop waits for messages, the pump for room.
  let wakeLoop: (() => void) | null = null;
  let wakePump: (() => void) | null = null;
  const fire = (f: (() => void) | null) => f?.();
  // The pump moves received messages into the buffer, pausing while a full batch waits so
  // the consumer's own flow control (and so the ack wait) stays bounded.
  const pump = (async () => {
    try {
      for await (const msg of messages) {
        buffer.push(msg);
        fire(wakeLoop);
        while (buffer.length >= maxBatch) await new Promise<void>((r) => (wakePump = r));
      }
    } finally {
      ended = true;
      fire(wakeLoop);
    }
  })();
  const done = (async () => {
    for (;;) {
      if (buffer.length === 0) {
        if (ended) return;
        await new Promise<void>((r) => (wakeLoop = r));
        continue;
      }
      const batch = buffer.splice(0, maxBatch);
      fire(wakePump);
      await handleBatch(opts, batch);
    }
  })();
  return {
    async stop() {
      unobserve();
      await messages.close();
      await pump;
      await done;
    },
  };
}

async function handleBatch(opts: BatchConsumerOptions, batch: JsMsg[]): Promise<void> {
  const items: { msg: JsMsg; event: EventEnvelope }[] = [];
  for (const msg of batch) {
    try {
      items.push({ msg, event: msg.json<EventEnvelope>() });
    } catch (err) {
      await giveUp(opts, msg, new Error(`undecodable event: ${(err as Error).message}`));
    }
  }
  if (items.length === 0) return;
  const one = (msg: JsMsg) => handleOne({ ...opts, handle: (event, tx) => opts.handle([event], tx) }, msg);
  if (items.length === 1) return one(items[0]!.msg);
  try {
    await runWithContext({ requestId: newId('request') }, () =>
      transaction(opts.pool, async (tx) => {
        const ids = [...new Set(items.map((i) => i.event.id))];
        const { rows } = await tx.query<{ event_id: string }>(
          `INSERT INTO processed_events (consumer, event_id) SELECT $1, unnest($2::text[])
           ON CONFLICT DO NOTHING RETURNING event_id`,
          [opts.durable, ids],
        );
        const fresh = new Set(rows.map((r) => r.event_id));
        // The first message of each new id is handled; a repeat inside the batch is only acked.
        const events = items.filter((i) => fresh.delete(i.event.id)).map((i) => i.event);
        if (events.length > 0) await opts.handle(events, tx);
      }),
    );
  } catch (err) {
    opts.log.warn(
      { err, events: items.length },
      'consumer: batch failed; handling its events one per transaction',
    );
    for (const { msg } of items) await one(msg);
    return;
  }
  for (const { msg } of items) msg.ack();
}
