// The simulator's programmatic face: shops, products, orders and their webhooks, faults,
// and a view of what the platform now holds (fulfillments, subscriptions, sent webhooks).
// Tests drive it directly; the HTTP control API (`/_sim/…`, server.ts) drives the same.
import { Faults } from './faults.js';
import type { AppCredentials } from './oauth.js';
import { orderPayload, uninstalledPayload } from './payloads.js';
import { sendWebhook } from './sender.js';
import { SimState, type Order, type Product, type SentWebhook, type Shop } from './state.js';

export interface ProductInput {
  title: string;
  vendor?: string;
  productType?: string;
  imageUrl?: string | null;
  sku?: string;
  price?: string;
}

export interface OrderInput {
  lineItems: { productId: number; quantity: number }[];
  customer?: { email: string; firstName: string; lastName: string };
}

export class Simulator {
  readonly state = new SimState();
  readonly faults = new Faults();

  constructor(
    readonly app: AppCredentials,
    readonly apiVersion: string,
  ) {}

  addShop(domain: string): Shop {
    return this.state.addShop(domain);
  }

  private shopOrThrow(domain: string): Shop {
    const shop = this.state.shop(domain);
    if (!shop) throw new Error(`unknown shop ${domain}`);
    return shop;
  }

  addProduct(domain: string, input: ProductInput): Product {
    const shop = this.shopOrThrow(domain);
    const id = this.state.id();
    const product: Product = {
      id,
      title: input.title,
      vendor: input.vendor ?? shop.domain.split('.')[0]!,
      productType: input.productType ?? '',
      imageUrl: input.imageUrl ?? null,
      variantId: this.state.id(),
      sku: input.sku ?? `SKU-${id}`,
      price: input.price ?? '100.00',
    };
    shop.products.set(id, product);
    return product;
  }

  /** A new order (`orders/create` is sent); `pay` then marks it paid (`orders/paid`). */
  async createOrder(domain: string, input: OrderInput): Promise<{ order: Order; sent: SentWebhook[] }> {
    const shop = this.shopOrThrow(domain);
    const id = this.state.id();
    const number = 1000 + shop.orders.size + 1;
    const customer = input.customer ?? { email: 'buyer@example.com', firstName: 'Ada', lastName: 'Lovelace' };
    const order: Order = {
      id,
      number,
      name: `#${number}`,
      email: customer.email,
      customer: { id: this.state.id(), ...customer },
      lineItems: input.lineItems.map((li) => {
        const product = shop.products.get(li.productId);
        if (!product) throw new Error(`unknown product ${li.productId}`);
        return { id: this.state.id(), product, quantity: li.quantity };
      }),
      financialStatus: 'pending',
      cancelledAt: null,
      createdAt: new Date().toISOString(),
      fulfillmentOrders: [],
    };
    order.fulfillmentOrders.push({ id: this.state.id(), orderId: id, status: 'OPEN' });
    shop.orders.set(id, order);
    const sent = await this.send(shop, 'orders/create', orderPayload(order, domain));
    return { order, sent };
  }

  async pay(domain: string, orderId: number): Promise<SentWebhook[]> {
    const shop = this.shopOrThrow(domain);
    const order = this.orderOrThrow(shop, orderId);
    order.financialStatus = 'paid';
    return this.send(shop, 'orders/paid', orderPayload(order, domain));
  }

  async cancel(domain: string, orderId: number): Promise<SentWebhook[]> {
    const shop = this.shopOrThrow(domain);
    const order = this.orderOrThrow(shop, orderId);
    order.cancelledAt = new Date().toISOString();
    order.financialStatus = 'voided';
    return this.send(shop, 'orders/cancelled', orderPayload(order, domain));
  }

  /** The merchant removes the app: tokens revoked, `app/uninstalled` sent, subscriptions gone. */
  async uninstall(domain: string): Promise<SentWebhook[]> {
    const shop = this.shopOrThrow(domain);
    shop.tokens.clear();
    const sent = await this.send(shop, 'app/uninstalled', uninstalledPayload(domain));
    shop.webhooks.clear();
    return sent;
  }

  /** Sends a webhook again with its original id and body (the platform's retry). */
  async redeliver(domain: string, webhookId: string): Promise<SentWebhook[]> {
    const shop = this.shopOrThrow(domain);
    const original = shop.sent.find((s) => s.webhookId === webhookId);
    if (!original) throw new Error(`no webhook ${webhookId}`);
    return sendWebhook(shop, original.topic, JSON.parse(original.body), {
      secret: this.app.apiSecret,
      apiVersion: this.apiVersion,
      webhookId,
    });
  }

  /** A public view of one shop (for tests, the control API and the demo). */
  view(domain: string) {
    const shop = this.shopOrThrow(domain);
    return {
      domain: shop.domain,
      installed: shop.tokens.size > 0,
      scopes: shop.scopes,
      webhooks: [...shop.webhooks.values()],
      products: [...shop.products.values()],
      orders: [...shop.orders.values()],
      fulfillments: shop.fulfillments,
      sent: shop.sent.map(({ body: _body, ...rest }) => rest),
    };
  }

  private orderOrThrow(shop: Shop, orderId: number): Order {
    const order = shop.orders.get(orderId);
    if (!order) throw new Error(`unknown order ${orderId}`);
    return order;
  }

  private send(shop: Shop, topic: string, payload: unknown): Promise<SentWebhook[]> {
    return sendWebhook(shop, topic, payload, { secret: this.app.apiSecret, apiVersion: this.apiVersion });
  }
}
