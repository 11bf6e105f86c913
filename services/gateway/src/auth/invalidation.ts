// Revocation everywhere within a second: each gateway listens (plain NATS subscription,
// every replica gets every message) to the keys service's key.* events as JetStream
// stores them, and drops its cached verification for that key.
import type { EventEnvelope, Logger } from '@hallmark/kit';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { KeyVerifier } from './key-verifier.js';

const DROPS_CACHE = new Set(['key.updated', 'key.revoked', 'key.rotated']);

export function subscribeKeyInvalidation(
  nc: NatsConnection,
  verifier: KeyVerifier,
  log: Logger,
): Subscription {
  const sub = nc.subscribe('hallmark.keys.key.>');
  void (async () => {
    for await (const msg of sub) {
      try {
        const event = msg.json<EventEnvelope>();
        if (DROPS_CACHE.has(event.type)) verifier.invalidate((event.data as { id: string }).id);
      } catch (err) {
        log.warn({ err, subject: msg.subject }, 'undecodable key event; clearing the key cache');
        verifier.clear();
      }
    }
  })();
  return sub;
}
