// The read model of issuer profiles, kept from the keys service's `enterprise_profile.updated`
// (every save and proof check of a profile; migration 0005 of keys announced the older ones):
// a durable consumer shared by the replicas, idempotent by event id (the kit records it in
// `processed_events` in the transaction that writes the row) and by `as_of` (a late, older
// announcement never replaces a newer one). A new durable starts at the beginning of the
// stream, so announcements made before this consumer first ran are read too. While keys, NATS
// or this consumer are away the public reads answer the last profile kept: a QR scan never
// waits on keys.
import {
  startConsumer,
  subjectFor,
  type Bus,
  type Consumer,
  type EventData,
  type EventEnvelope,
  type Logger,
  type Pool,
  type PoolClient,
} from '@hallmark/kit';
import { issuerOfEvent } from '../domain.js';
import { keepIssuer } from '../store.js';

export const ISSUER_PROFILES_DURABLE = 'certificates-issuer-profiles';

export interface IssuerProfileConsumerOptions {
  bus: Bus;
  pool: Pool;
  log: Logger;
  /** Durable consumer name, shared by replicas (default certificates-issuer-profiles). */
  durable?: string;
  /** Subject filter (default the keys service's enterprise_profile.updated). */
  filter?: string;
}

/** The consumer as a worker (start, stop) of bootstrap.ts. */
export function issuerProfileConsumer(opts: IssuerProfileConsumerOptions) {
  let consumer: Consumer | null = null;
  return {
    async start() {
      consumer = await startConsumer({
        ...opts,
        durable: opts.durable ?? ISSUER_PROFILES_DURABLE,
        filter: opts.filter ?? subjectFor('keys', 'enterprise_profile.updated'),
        handle: (event, tx) => keepAnnounced(event, tx, opts.log),
      });
    },
    async stop() {
      await consumer?.stop();
      consumer = null;
    },
  };
}

/** Keeps the announced profile (in `tx`), unless a newer one is kept. */
async function keepAnnounced(event: EventEnvelope, tx: PoolClient, log: Logger): Promise<void> {
  if (event.type !== 'enterprise_profile.updated') return;
  const issuer = issuerOfEvent(event.data as EventData<'enterprise_profile.updated'>);
  if (!issuer) {
    log.warn({ event_id: event.id }, 'issuer profiles: malformed announcement; skipped');
    return;
  }
  await keepIssuer(tx, issuer);
}
