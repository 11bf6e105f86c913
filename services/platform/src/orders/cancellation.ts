// A cancelled order's certificate vouchers are voided (certificates VoidVouchers): unclaimed
// ones then show "voided" with the reason and can no longer be claimed; claimed ones stay
// with their owners. Called after the cancellation commits, when the order's job finishes
// after a cancellation, and by the submitter until it succeeds.
import type { AsyncClient, Logger } from '@hallmark/kit';
import type { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import { PROVISIONED_SCOPES } from '../install/service.js';
import type { InstallStore } from '../install/store.js';
import type { OrdersStore } from './store.js';

export const VOID_REASON = 'The order it was issued for was cancelled.';

export class Cancellations {
  constructor(
    private readonly orders: OrdersStore,
    private readonly installs: InstallStore,
    private readonly vouchers: AsyncClient<CertificateVoucherServiceClient>,
    private readonly log: Logger,
  ) {}

  /** Voids the order's vouchers if it is cancelled; true when nothing is left to void. */
  async voidIfCancelled(shop: string, orderId: string): Promise<boolean> {
    const order = await this.orders.get(shop, orderId);
    if (!order || order.status !== 'cancelled') return true;
    if (order.voucherIds.length === 0) return true;
    const integration = await this.installs.forShop(shop);
    if (!integration) return true;
    try {
      const res = await this.vouchers.voidVouchers(
        {
          principal: {
            enterprise_id: integration.enterpriseId,
            livemode: integration.livemode,
            actor_id: integration.apiKeyId ?? 'platform',
            actor_type: 'api_key',
            scopes: PROVISIONED_SCOPES,
          },
          voucher_ids: order.voucherIds,
          reason: VOID_REASON,
        },
        // Bounded: it may run while the platform waits for its webhook's answer (5 s).
        { idempotent: true, deadlineMs: 2000 },
      );
      await this.orders.markVoided(shop, orderId);
      this.log.info(
        { shop, orderId, voided: res.voided_ids.length, claimed: res.claimed_ids.length },
        'order cancelled: vouchers voided',
      );
      return true;
    } catch (err) {
      this.log.warn({ err, shop, orderId }, 'voiding a cancelled order’s vouchers failed; will retry');
      return false;
    }
  }
}
