// The dead-letter stream: where a consumer parks an event it gave up on (after
// HALLMARK_NATS_MAX_DELIVER deliveries, or one it cannot decode), with who gave up, on what,
// after how many deliveries and why. An operator lists the parked messages and replays one
// (`pnpm hallmark dlq list|replay <seq>`): the original event is published again on its
// subject, every consumer's processed_events makes it a no-op for those that handled it, and
// the parked copy is deleted.
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { counter } from './metrics.js';

export const DLQ_STREAM = 'HALLMARK_DLQ';
export const DLQ_SUBJECT_PREFIX = 'dlq.hallmark';
const H = {
  consumer: 'Hallmark-Dlq-Consumer',
  subject: 'Hallmark-Dlq-Subject',
  streamSeq: 'Hallmark-Dlq-Stream-Seq',
  deliveries: 'Hallmark-Dlq-Deliveries',
  error: 'Hallmark-Dlq-Error',
  at: 'Hallmark-Dlq-At',
};

/**
 * Messages parked per consumer since this process started; Prometheus reads the same count as
 * `hallmark_events_dead_lettered_total{consumer}`.
 */
export const deadLettered = new Map<string, number>();
/**
 * The consumer's series at 0 from its start, so a first parked event is an increase (a counter
 * born at 1 would be invisible to `increase()` and the alert on it).
 */
export const countDeadLettered = (consumer: string): void => void deadLetteredTotal([{ consumer }]);

const deadLetteredTotal = (known: { consumer: string }[] = []) =>
  counter(
    'hallmark_events_dead_lettered_total',
    'Events a consumer gave up on and parked in the dead-letter stream',
    ['consumer'],
    { known },
  );

export interface ParkedMessage {
  /** Sequence in the dead-letter stream: what `replay` takes. */
  seq: number;
  consumer: string;
  subject: string;
  /** Sequence of the original message in the HALLMARK stream. */
  streamSeq: number;
  deliveries: number;
  error: string;
  parkedAt: string;
  eventId?: string;
  eventType?: string;
  data: Uint8Array;
  headers: MsgHdrs | undefined;
}

/** Parks one delivered message; the caller then terminates it. Throws when NATS refuses. */
export async function parkMessage(
  js: JetStreamClient,
  consumer: string,
  msg: JsMsg,
  error: unknown,
  log: Logger,
): Promise<void> {
  const h = natsHeaders();
  for (const [k, v] of msg.headers ?? [])
    if (!k.toLowerCase().startsWith('nats-')) for (const x of v) h.append(k, x);
  const text = error instanceof Error ? error.message : String(error);
  h.set(H.consumer, consumer);
  h.set(H.subject, msg.subject);
  h.set(H.streamSeq, String(msg.seq));
  h.set(H.deliveries, String(msg.info.deliveryCount));
  // Header values are one line; keep the error short enough for a header.
  h.set(H.error, text.replace(/[\r\n]+/g, ' ').slice(0, 1000));
  h.set(H.at, new Date().toISOString());
  await js.publish(`${DLQ_SUBJECT_PREFIX}.${consumer}`, msg.data, {
    headers: h,
    // The same delivery parked twice (a crash between publish and term) is stored once.
    msgID: `${consumer}:${msg.seq}`,
  });
  deadLettered.set(consumer, (deadLettered.get(consumer) ?? 0) + 1);
  deadLetteredTotal().inc({ consumer });
  log.error(
    {
      consumer,
      subject: msg.subject,
      stream_seq: msg.seq,
      deliveries: msg.info.deliveryCount,
      error: text,
    },
    'consumer: gave up on a message; parked in the dead-letter stream',
  );
}

function parked(seq: number, data: Uint8Array, hdrs: MsgHdrs | undefined): ParkedMessage {
  let eventId: string | undefined;
  let eventType: string | undefined;
  try {
    const e = JSON.parse(new TextDecoder().decode(data)) as { id?: string; type?: string };
    eventId = e.id;
    eventType = e.type;
  } catch {
    // undecodable: shown without id and type
  }
  return {
    seq,
    consumer: hdrs?.get(H.consumer) ?? '',
    subject: hdrs?.get(H.subject) ?? '',
    streamSeq: Number(hdrs?.get(H.streamSeq) ?? 0),
    deliveries: Number(hdrs?.get(H.deliveries) ?? 0),
    error: hdrs?.get(H.error) ?? '',
    parkedAt: hdrs?.get(H.at) ?? '',
    eventId,
    eventType,
    data,
    headers: hdrs,
  };
}

/** Every parked message, oldest first (at most `limit`). */
export async function listParked(nc: NatsConnection, limit = 1000): Promise<ParkedMessage[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(DLQ_STREAM).catch(() => null);
  if (!info || info.state.messages === 0) return [];
  const out: ParkedMessage[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && out.length < limit; seq++) {
    const m = await jsm.streams.getMessage(DLQ_STREAM, { seq }).catch(() => null);
    if (m) out.push(parked(m.seq, m.data, m.header));
  }
  return out;
}

/**
 * Publishes parked message `seq` again on its original subject (original headers, a fresh
 * message id so the stream's duplicate window does not swallow it), then deletes it from the
 * dead-letter stream. Returns what was replayed.
 */
export async function replayParked(nc: NatsConnection, seq: number): Promise<ParkedMessage> {
  const jsm = await jetstreamManager(nc);
  const m = await jsm.streams.getMessage(DLQ_STREAM, { seq }).catch(() => null);
  if (!m) throw new Error(`no parked message with sequence ${seq} in ${DLQ_STREAM}`);
  const p = parked(m.seq, m.data, m.header);
  if (!p.subject) throw new Error(`parked message ${seq} names no original subject`);
  const h = natsHeaders();
  for (const [k, v] of p.headers ?? [])
    if (!k.toLowerCase().startsWith('hallmark-dlq-') && !k.toLowerCase().startsWith('nats-'))
      for (const x of v) h.append(k, x);
  await jetstream(nc).publish(p.subject, p.data, { headers: h, msgID: `replay:${DLQ_STREAM}:${seq}` });
  await jsm.streams.deleteMessage(DLQ_STREAM, seq);
  return p;
}
