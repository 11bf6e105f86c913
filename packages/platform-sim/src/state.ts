// What the simulated platform remembers: shops, the app's installations and access tokens,
// webhook subscriptions, products, orders with their fulfillment orders, fulfillments and
// every webhook it sent. Ids are numeric like the platform's; global ids are
// `gid://shopify/<Type>/<n>` (the interface's `shopify` marker).
import { randomBytes } from 'node:crypto';

export const gid = (type: string, id: number): string => `gid://shopify/${type}/${id}`;

/** The numeric id of a global id (`gid://shopify/Order/42` → 42), or NaN. */
export const idOf = (globalId: string): number => Number(/\/(\d+)$/.exec(globalId)?.[1] ?? NaN);

export interface Product {
  id: number;
  title: string;
  vendor: string;
  productType: string;
  imageUrl: string | null;
  variantId: number;
  sku: string;
  price: string;
}

export interface LineItem {
  id: number;
  product: Product;
  quantity: number;
}

export interface FulfillmentOrder {
  id: number;
  orderId: number;
  status: 'OPEN' | 'CLOSED';
}

export interface Fulfillment {
  id: number;
  orderId: number;
  fulfillmentOrderIds: number[];
  trackingNumber: string | null;
  trackingUrl: string | null;
  trackingCompany: string | null;
  notifyCustomer: boolean;
  /** Which API created it. */
  via: 'graphql' | 'rest';
  createdAt: string;
}

export interface Order {
  id: number;
  number: number;
  name: string;
  email: string;
  customer: { id: number; email: string; firstName: string; lastName: string };
  lineItems: LineItem[];
  financialStatus: 'pending' | 'paid' | 'voided';
  cancelledAt: string | null;
  createdAt: string;
  fulfillmentOrders: FulfillmentOrder[];
}

export interface WebhookSubscription {
  id: number;
  topic: string;
  callbackUrl: string;
  apiVersion: string;
}

export interface SentWebhook {
  webhookId: string;
  topic: string;
  callbackUrl: string;
  body: string;
  status: number | 'error';
  sentAt: string;
}

export interface Shop {
  domain: string;
  /** Access tokens this shop has granted the app (revoked on uninstall). */
  tokens: Set<string>;
  scopes: string;
  webhooks: Map<number, WebhookSubscription>;
  products: Map<number, Product>;
  orders: Map<number, Order>;
  fulfillments: Fulfillment[];
  sent: SentWebhook[];
}

export class SimState {
  readonly shops = new Map<string, Shop>();
  /** OAuth codes awaiting exchange: code → shop (single use). */
  readonly codes = new Map<string, { shop: string; scope: string; expiresAt: number }>();
  /**
   * Ids grow from the start time, so a restarted simulator never repeats an order id an app
   * has already seen (the platform's ids are unique forever; apps deduplicate on them).
   */
  private nextId = Math.floor(Date.now() / 1000) * 100;

  id(): number {
    return ++this.nextId;
  }

  addShop(domain: string): Shop {
    const existing = this.shops.get(domain);
    if (existing) return existing;
    const shop: Shop = {
      domain,
      tokens: new Set(),
      scopes: '',
      webhooks: new Map(),
      products: new Map(),
      orders: new Map(),
      fulfillments: [],
      sent: [],
    };
    this.shops.set(domain, shop);
    return shop;
  }

  shop(domain: string): Shop | undefined {
    return this.shops.get(domain);
  }

  /** The shop an access token belongs to, if it is still valid for `domain`. */
  tokenValid(domain: string, token: string | undefined): boolean {
    return !!token && !!this.shops.get(domain)?.tokens.has(token);
  }

  issueCode(shop: string, scope: string): string {
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { shop, scope, expiresAt: Date.now() + 60_000 });
    return code;
  }

  issueToken(shop: Shop, scope: string): string {
    const token = `shpat_${randomBytes(16).toString('hex')}`;
    shop.tokens.add(token);
    shop.scopes = scope;
    return token;
  }
}
