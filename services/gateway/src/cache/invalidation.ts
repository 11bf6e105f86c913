// Drops the public cache's entries of a certificate when it changes: each gateway process
// reads the certificates service's certificate.* events (minted, batch_minted, transferred,
// burned, updated: warranty, gift claimed, voucher claim and its undoing) through an ordered
// consumer of its own (ephemeral, no acks, new events only), so every replica sees every
// event and drops its own entry. An ordered consumer resumes where it stopped after a
// reconnect; still, the cache is dropped wholesale when the consumer is lost and again when
// it (or the connection) comes back, and while NATS stays away the entries' TTL is the bound.
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { STREAM_NAME, type EventEnvelope, type Logger } from '@hallmark/kit';
import type { NatsConnection } from '@nats-io/transport-node';
import type { PublicCache } from './public-cache.js';

export const CERTIFICATE_EVENTS = 'hallmark.certificates.certificate.>';

export interface CacheInvalidation {
  /** True once the consumer reads events. */
  readonly live: boolean;
  stop(): Promise<void>;
}

type CertificateRef = { id: string; tokenId: number | null };

/** The certificate (and token) an event of `CERTIFICATE_EVENTS` is about. */
export function certificateOf(event: EventEnvelope): CertificateRef | null {
  const object = (event.data as { object?: { id?: unknown; tokenId?: unknown } }).object;
  if (!object || typeof object.id !== 'string') return null;
  return { id: object.id, tokenId: typeof object.tokenId === 'number' ? object.tokenId : null };
}

/**
 * Every certificate an event is about: the one of certificateOf, or each of a
 * certificate.batch_minted (one event per minted batch); null when the event names none.
 */
export function certificatesOf(event: EventEnvelope): CertificateRef[] | null {
  if (event.type === 'certificate.batch_minted') {
    const list = (event.data as { object?: { certificates?: unknown } }).object?.certificates;
    if (!Array.isArray(list)) return null;
    const refs = list.map((c: { id?: unknown; tokenId?: unknown }) =>
      typeof c?.id === 'string'
        ? { id: c.id, tokenId: typeof c.tokenId === 'number' ? c.tokenId : null }
        : null,
    );
    return refs.every((r) => r !== null) ? (refs as CertificateRef[]) : null;
  }
  const one = certificateOf(event);
  return one ? [one] : null;
}

export function startCacheInvalidation(
  nc: NatsConnection,
  cache: PublicCache,
  log: Logger,
  retryMs = 1000,
): CacheInvalidation {
  let stopped = false;
  let live = false;
  let messages: ConsumerMessages | null = null;
  let wake: (() => void) | null = null;

  // Events possibly missed while disconnected: forget everything once back.
  const watch = (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'reconnect') {
        cache.clear();
        log.info('public cache cleared: NATS connection back');
      }
    }
  })().catch(() => undefined);

  const run = (async () => {
    let everLive = false;
    while (!stopped) {
      try {
        const consumer = await jetstream(nc).consumers.get(STREAM_NAME, {
          // One subject as a string: `filter_subject`, which servers before 2.10 know too
          // (an array is `filter_subjects`, 2.10+ only).
          filter_subjects: CERTIFICATE_EVENTS,
          deliver_policy: DeliverPolicy.New,
        });
        messages = await consumer.consume();
        // Back after a loss: what happened meanwhile was not heard.
        if (everLive) cache.clear();
        live = everLive = true;
        for await (const msg of messages) {
          try {
            const refs = certificatesOf(msg.json<EventEnvelope>());
            if (refs) for (const c of refs) cache.invalidate(c.id, c.tokenId);
            else cache.clear();
          } catch (err) {
            log.warn(
              { err, subject: msg.subject },
              'undecodable certificate event; clearing the public cache',
            );
            cache.clear();
          }
        }
      } catch (err) {
        if (!stopped) {
          log.warn(
            { err },
            'public cache: certificate events unavailable; retrying (the TTL bounds staleness)',
          );
        }
      }
      if (live) cache.clear(); // lost now: entries live out their TTL from here
      live = false;
      messages = null;
      if (stopped) break;
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, retryMs).unref();
      });
    }
  })();

  return {
    get live() {
      return live;
    },
    async stop() {
      stopped = true;
      wake?.();
      await messages?.close();
      await run;
      void watch;
    },
  };
}
