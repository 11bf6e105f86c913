// Inbound platform webhooks: verified against the app secret, fresh (triggered-at within the
// window), bound to the header's shop (the signed body names it, or its order is not another
// shop's), deduplicated (same webhook id, or same topic + order), recorded with their effect
// in one transaction, answered at once. app/uninstalled acts only once the platform no longer
// accepts the shop's token (its body has no time, so this is what tells a replay).
// orders/paid starts the order's workflow after commit (or the submitter does, if Restate
// is away); orders/cancelled voids the order's unclaimed vouchers; app/uninstalled disables the integration and revokes the provisioned key.
import { HallmarkError, startAndRecord, type AsyncClient, type Logger } from '@hallmark/kit';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import type { InstallStore } from '../install/store.js';
import type { Cancellations } from './cancellation.js';
import {
  checkBoundToShop,
  checkFreshness,
  isInboundTopic,
  parseOrder,
  verifyWebhook,
} from './domain/webhook.js';
import type { OrdersStore } from './store.js';
import type { OrderWorkflowIngress } from './workflows/ingress.js';

export interface InboundWebhook {
  body: Buffer;
  hmac: string;
  shop: string;
  topic: string;
  webhookId: string;
  /** X-Platform-Triggered-At. */
  triggeredAt: string;
}

export class OrdersService {
  constructor(
    private readonly orders: OrdersStore,
    private readonly installs: InstallStore,
    private readonly ingress: OrderWorkflowIngress,
    private readonly keys: AsyncClient<KeysServiceClient>,
    private readonly cancellations: Cancellations,
    private readonly apiSecret: string,
    private readonly log: Logger,
    /** The platform's store-domain suffix (`.myshopify.com`). */
    private readonly shopSuffix: string,
    /** Whether the platform still accepts the shop's token (InstallService.stillInstalled). */
    private readonly stillInstalled: (shop: string) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Answers whether the webhook was a duplicate. */
  async receive(w: InboundWebhook): Promise<boolean> {
    // An unsigned request is refused as such (401) whatever the configuration; without an app
    // secret nothing can be verified (an empty HMAC key is anyone's), so a signed one is 503.
    if (!w.hmac) throw new HallmarkError('invalid_token', { message: 'The webhook signature is missing.' });
    if (!this.apiSecret)
      throw new HallmarkError('service_unavailable', {
        message: 'The e-commerce platform integration is not configured.',
      });
    verifyWebhook(w.body, w.hmac, this.apiSecret);
    checkFreshness(w.triggeredAt, this.now());
    if (!isInboundTopic(w.topic)) {
      this.log.info({ topic: w.topic, shop: w.shop }, 'webhook: topic not handled; acknowledged');
      return false;
    }
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(w.body.toString('utf8'));
    } catch {
      throw new HallmarkError('malformed_json', { message: 'The webhook body is not JSON.' });
    }
    try {
      checkBoundToShop(w.topic, payload, w.shop, this.shopSuffix);
    } catch (err) {
      this.log.warn({ topic: w.topic, shop: w.shop }, 'webhook: body names another shop; refused');
      throw err;
    }
    const integration = await this.installs.forShop(w.shop);
    if (!integration || (integration.status !== 'active' && w.topic !== 'app/uninstalled')) {
      this.log.info({ topic: w.topic, shop: w.shop }, 'webhook: shop not installed; acknowledged');
      return false;
    }
    if (
      w.topic === 'app/uninstalled' &&
      integration.status === 'active' &&
      (await this.stillInstalled(w.shop))
    ) {
      this.log.warn(
        { shop: w.shop },
        'webhook: app/uninstalled while the token still works (a replay); ignored',
      );
      return false;
    }
    const order = w.topic === 'app/uninstalled' ? null : parseOrder(payload);
    const orderId = order?.gid ?? null;
    const webhookId = w.webhookId || `${w.topic}:${w.shop}:${orderId ?? ''}`;
    const base = { shop: w.shop, enterpriseId: integration.enterpriseId, name: order?.name ?? null };

    const effect = await this.orders.tx(async (tx) => {
      const otherShop = orderId ? await this.orders.orderHeardFromOtherShop(tx, orderId, w.shop) : null;
      if (otherShop) {
        this.log.warn({ topic: w.topic, shop: w.shop, otherShop }, 'webhook: order of another shop; refused');
        throw new HallmarkError('invalid_token', {
          message: 'The webhook names an order of another shop than X-Platform-Shop-Domain.',
        });
      }
      if (!(await this.orders.firstDelivery(tx, webhookId, w.shop, w.topic, orderId)))
        return { duplicate: true } as const;
      switch (w.topic) {
        case 'orders/create':
          await this.orders.recordCreated(tx, { ...base, orderId: orderId!, payload });
          return { duplicate: false } as const;
        case 'orders/paid':
          return {
            duplicate: false,
            paid: await this.orders.recordPaid(tx, {
              ...base,
              orderId: orderId!,
              livemode: integration.livemode,
              payload,
            }),
          } as const;
        case 'orders/cancelled':
          return {
            duplicate: false,
            voided: await this.orders.recordCancelled(tx, { ...base, orderId: orderId!, payload }),
          } as const;
        default:
          return { duplicate: false, uninstalled: await this.installs.uninstall(tx, w.shop) } as const;
      }
    });

    if (w.topic === 'orders/paid' && orderId) await this.startWorkflow(w.shop, orderId);
    if (w.topic === 'orders/cancelled' && orderId && !effect.duplicate)
      await this.cancellations.voidIfCancelled(w.shop, orderId);
    if ('uninstalled' in effect && effect.uninstalled?.keyToRevoke) {
      const u = effect.uninstalled;
      await this.revokeProvisionedKey({
        shop: w.shop,
        enterpriseId: u.enterpriseId,
        livemode: integration.livemode,
        keyId: u.keyToRevoke!,
        user: u.principalUser,
      });
    }
    return effect.duplicate;
  }

  /** Revokes the key Hallmark provisioned for an uninstalled shop; a failure is left to the submitter. */
  async revokeProvisionedKey(k: {
    shop: string;
    enterpriseId: string;
    livemode: boolean;
    keyId: string;
    user: string;
  }) {
    try {
      await this.keys.revokeKey(
        {
          principal: {
            enterprise_id: k.enterpriseId,
            livemode: k.livemode,
            actor_id: k.user,
            actor_type: 'user',
            scopes: ['admin.*'],
          },
          key_id: k.keyId,
          ip_address: '',
        },
        // Bounded: it runs while the platform waits for its webhook's answer (5 s).
        { deadlineMs: 2000 },
      );
      await this.installs.keyRevoked(k.shop, k.keyId);
    } catch (err) {
      this.log.warn({ err, shop: k.shop }, 'uninstall: key revocation failed; will retry');
    }
  }

  /** Starts the order's workflow unless Restate already has it; a failure is left to the submitter. */
  startWorkflow(shop: string, orderId: string): Promise<boolean> {
    return startAndRecord(
      this.log,
      { shop, orderId },
      () => this.ingress.start(shop, orderId),
      () => this.orders.markSubmitted(shop, orderId),
    );
  }
}
