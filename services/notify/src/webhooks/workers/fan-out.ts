// The fan-out: a durable JetStream consumer over every domain event that turns each into
// its deliveries, inside the transaction in which the kit records the event ids as
// processed — so a redelivered event (crash, NATS restart, relay re-publish) creates
// nothing twice, and a crash before commit loses nothing. Events already received are
// taken as one batch per transaction (the kit's batch consumer): a redemption's three
// events, or a burst of them, cost one transaction instead of one each.
import { startBatchConsumer, type Bus, type Consumer, type Logger, type Pool } from '@hallmark/kit';
import type { WebhooksService } from '../service.js';

export interface FanOutOptions {
  bus: Bus;
  pool: Pool;
  log: Logger;
  webhooks: Pick<WebhooksService, 'fanOut'>;
  /** Durable consumer name, shared by replicas (default notify-webhooks). */
  durable?: string;
  /** Subject filter (default every domain event). */
  filter?: string;
  /** JetStream ack wait: how soon an unacknowledged event is redelivered (default 30 s). */
  ackWaitMs?: number;
}

export class FanOutConsumer {
  private consumer: Consumer | null = null;

  constructor(private readonly opts: FanOutOptions) {}

  async start(): Promise<void> {
    const { bus, pool, log, webhooks } = this.opts;
    this.consumer = await startBatchConsumer({
      bus,
      pool,
      log,
      durable: this.opts.durable ?? 'notify-webhooks',
      filter: this.opts.filter ?? 'hallmark.>',
      ackWaitMs: this.opts.ackWaitMs,
      handle: async (events, tx) => {
        const n = await webhooks.fanOut(tx, events);
        if (n > 0) log.debug({ events: events.length, deliveries: n }, 'webhook fan-out');
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }
}
