// gRPC handler of ReceiveWebhook: proto <-> OrdersService.
import type { AsyncHandlers } from '@hallmark/kit';
import type { PlatformServiceServer } from '@hallmark/proto/platform/v1/platform';
import type { OrdersService } from './service.js';

export function ordersHandlers(
  svc: OrdersService,
): Pick<AsyncHandlers<PlatformServiceServer>, 'receiveWebhook'> {
  return {
    async receiveWebhook(req) {
      const duplicate = await svc.receive({
        body: Buffer.from(req.body),
        hmac: req.hmac,
        shop: req.shop_domain.toLowerCase(),
        topic: req.topic,
        webhookId: req.webhook_id,
        triggeredAt: req.triggered_at,
      });
      return { duplicate };
    },
  };
}
