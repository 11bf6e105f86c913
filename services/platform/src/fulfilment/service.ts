// Fulfilling an order with its certificates' chain transaction: GraphQL first, the REST
// resources when GraphQL fails; each attempt recorded. An order whose fulfillment orders are
// already closed counts as fulfilled, so an attempt repeated after a crash never creates a
// second fulfilment. Failures are recorded, never thrown: they never fail the order's job.
import { HallmarkError, notFound, type Logger } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { AdminApi } from '../admin-api/client.js';
import type { InstallStore } from '../install/store.js';
import { backoffMs, failureText, MAX_ATTEMPTS, trackingFor } from './domain/fulfilment.js';
import type { FulfilmentRecord, FulfilmentStore } from './store.js';

export interface FulfilmentConfig {
  explorerTxUrl: string;
  company: string;
  backoffBaseMs: number;
}

/** Looks up what a retry needs about an order (the orders slice answers it). */
export type OrderLookup = (
  shop: string,
  orderRef: string,
) => Promise<{ orderId: string; transactionHash: string | null } | null>;

export class FulfilmentService {
  constructor(
    private readonly store: FulfilmentStore,
    private readonly installs: InstallStore,
    private readonly admin: AdminApi,
    private readonly cfg: FulfilmentConfig,
    private readonly log: Logger,
  ) {}

  backoff(attempt: number): number {
    return backoffMs(attempt, this.cfg.backoffBaseMs);
  }

  /** One attempt; `final` marks a failure as the recorded outcome. Never throws for platform failures. */
  async attempt(
    shop: string,
    orderId: string,
    transactionHash: string,
    final: boolean,
  ): Promise<FulfilmentRecord> {
    const tracking = trackingFor(transactionHash, this.cfg.explorerTxUrl, this.cfg.company);
    const token = await this.installs.accessToken(shop);
    if (!token)
      return this.store.record(shop, orderId, {
        status: 'failed',
        error: 'The shop has uninstalled the app.',
        ...this.t(tracking),
      });
    let graphqlError: string;
    try {
      const r = await this.admin.fulfilGraphql(shop, token, orderId, tracking);
      return this.store.record(shop, orderId, {
        status: 'fulfilled',
        via: r.via,
        fulfillmentId: r.fulfillmentId,
        ...this.t(tracking),
      });
    } catch (err) {
      graphqlError = (err as Error).message;
    }
    try {
      const r = await this.admin.fulfilRest(shop, token, orderId, tracking);
      return this.store.record(shop, orderId, {
        status: 'fulfilled',
        via: r.via,
        fulfillmentId: r.fulfillmentId,
        ...this.t(tracking),
      });
    } catch (err) {
      const error = failureText(graphqlError, (err as Error).message);
      this.log.warn({ shop, orderId, error, final }, 'fulfilment attempt failed');
      return this.store.record(shop, orderId, {
        status: final ? 'failed' : 'pending',
        error,
        ...this.t(tracking),
      });
    }
  }

  skip(shop: string, orderId: string, why: string) {
    return this.store.record(shop, orderId, { status: 'skipped', error: why });
  }

  /** POST /fulfillment/retry: up to 3 more attempts with the same backoff, outside any workflow. */
  async retry(
    principal: Principal,
    shop: string,
    orderRef: string,
    lookup: OrderLookup,
  ): Promise<FulfilmentRecord> {
    await this.installs.forTenant(shop, principal.enterprise_id);
    const order = await lookup(shop, orderRef);
    if (!order) throw notFound('order', orderRef);
    const current = await this.store.get(shop, order.orderId);
    if (current?.status === 'fulfilled') return current;
    if (!order.transactionHash)
      throw new HallmarkError('validation_failed', {
        message: 'The order has no minted certificates to fulfil with yet.',
        param: 'orderId',
      });
    let last!: FulfilmentRecord;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      last = await this.attempt(shop, order.orderId, order.transactionHash, attempt === MAX_ATTEMPTS);
      if (last.status === 'fulfilled') break;
      if (attempt < MAX_ATTEMPTS) await new Promise((r) => setTimeout(r, this.backoff(attempt)));
    }
    return last;
  }

  private t(tracking: { number: string; url: string }) {
    return { trackingNumber: tracking.number, trackingUrl: tracking.url };
  }
}
