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

export class IssuerProfileConsumer {
  private consumer: Consumer | null = null;

  constructor(
    private readonly opts: {
      bus: Bus;
      pool: Pool;
      log: Logger;
      /** Durable consumer name, shared by replicas (default certificates-issuer-profiles). */
      durable?: string;
      /** Subject filter (default the keys service's enterprise_profile.updated). */
      filter?: string;
      ackWaitMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    const { bus, pool, log } = this.opts;
    this.consumer = await startConsumer({
      bus,
      pool,
      log,
      durable: this.opts.durable ?? ISSUER_PROFILES_DURABLE,
      filter: this.opts.filter ?? subjectFor('keys', 'enterprise_profile.updated'),
      ackWaitMs: this.opts.ackWaitMs,
      handle: (event, tx) => this.handle(event, tx),
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  /** Keeps the announced profile (in `tx`), unless a newer one is kept. */
  async handle(event: EventEnvelope, tx: PoolClient): Promise<void> {
    if (event.type !== 'enterprise_profile.updated') return;
    const issuer = issuerOfEvent(event.data as EventData<'enterprise_profile.updated'>);
    if (!issuer) {
      this.opts.log.warn({ event_id: event.id }, 'issuer profiles: malformed announcement; skipped');
      return;
    }
    await keepIssuer(tx, issuer);
  }
}
