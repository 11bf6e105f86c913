// gRPC handler of RetryFulfillment: proto <-> FulfilmentService.
import { requirePrincipal, type AsyncHandlers } from '@hallmark/kit';
import type { Fulfillment, PlatformServiceServer } from '@hallmark/proto/platform/v1/platform';
import type { FulfilmentService, OrderLookup } from './service.js';
import type { FulfilmentRecord } from './store.js';

export function fulfilmentToProto(f: FulfilmentRecord, jobId?: string | null): Fulfillment {
  return {
    shop: f.shop,
    order_id: f.orderId,
    status: f.status,
    attempts: f.attempts,
    via: f.via ?? undefined,
    tracking_number: f.trackingNumber ?? undefined,
    tracking_url: f.trackingUrl ?? undefined,
    error: f.error ?? undefined,
    job_id: jobId ?? undefined,
  };
}

export function fulfilmentHandlers(
  svc: FulfilmentService,
  lookup: OrderLookup,
  parseShop: (s: string) => string,
): Pick<AsyncHandlers<PlatformServiceServer>, 'retryFulfillment'> {
  return {
    async retryFulfillment(req) {
      const shop = parseShop(req.shop);
      return fulfilmentToProto(await svc.retry(requirePrincipal(req.principal), shop, req.order_id, lookup));
    },
  };
}
