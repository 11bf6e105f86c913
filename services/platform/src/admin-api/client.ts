// Hallmark's calls to a shop's Admin API: the OAuth code exchange, GraphQL (webhook
// subscriptions, fulfillment orders, fulfillment create, products) and the REST fallback
// for products and fulfilment. Every call has a deadline; failures are AdminApiErrors saying whether the
// platform refused (GraphQL errors, userErrors, 4xx) or could not answer (5xx, timeout).
import {
  CREATE_FULFILLMENT,
  CREATE_WEBHOOK,
  FULFILLMENT_ORDERS,
  LIST_WEBHOOKS,
  PRODUCTS,
  WEBHOOK_TOPICS,
  type InboundTopic,
} from './queries.js';

export const ACCESS_TOKEN_HEADER = 'X-Platform-Access-Token';

export class AdminApiError extends Error {
  constructor(
    readonly kind: 'graphql' | 'user' | 'http' | 'timeout' | 'network',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }
}

export interface AdminApiOptions {
  adminUrlTemplate: string;
  apiKey: string;
  apiSecret: string;
  apiVersion: string;
  timeoutMs: number;
}

export interface Tracking {
  number: string;
  url: string;
  company: string;
}

export interface ProductInfo {
  title: string;
  vendor: string;
  productType: string;
  imageUrl: string | null;
}

export interface ProductLookup {
  via: 'graphql' | 'rest';
  products: Map<string, ProductInfo>;
}

/** The platform's REST page limit. */
const REST_PAGE = 250;

export interface FulfilResult {
  via: 'graphql' | 'rest' | 'already';
  fulfillmentId: string | null;
}

export class AdminApi {
  constructor(private readonly opts: AdminApiOptions) {}

  adminBase(shop: string): string {
    return this.opts.adminUrlTemplate.replace('{shop}', shop);
  }

  authorizeUrl(shop: string, scopes: string[], redirectUri: string, state: string): string {
    const q = new URLSearchParams({
      client_id: this.opts.apiKey,
      scope: scopes.join(','),
      redirect_uri: redirectUri,
      state,
    });
    return `${this.adminBase(shop)}/oauth/authorize?${q}`;
  }

  async exchangeCode(shop: string, code: string): Promise<{ accessToken: string; scope: string }> {
    const body = await this.request(shop, 'POST', '/oauth/access_token', null, {
      client_id: this.opts.apiKey,
      client_secret: this.opts.apiSecret,
      code,
    });
    const b = body as { access_token?: string; scope?: string };
    if (!b.access_token) throw new AdminApiError('user', 'the platform returned no access token');
    return { accessToken: b.access_token, scope: b.scope ?? '' };
  }

  async graphql<T>(shop: string, token: string, query: string, variables: object = {}): Promise<T> {
    const path = `/api/${this.opts.apiVersion}/graphql.json`;
    const body = (await this.request(shop, 'POST', path, token, { query, variables })) as {
      data?: T;
      errors?: { message: string }[];
    };
    if (body.errors?.length || !body.data)
      throw new AdminApiError('graphql', body.errors?.map((e) => e.message).join('; ') || 'no data');
    return body.data;
  }

  rest(shop: string, token: string, method: string, resource: string, body?: object): Promise<unknown> {
    return this.request(shop, method, `/api/${this.opts.apiVersion}/${resource}`, token, body);
  }

  /** Subscribes `callbackUrl` to the topics it is not yet subscribed to; answers all topics. */
  async registerWebhooks(shop: string, token: string, callbackUrl: string): Promise<string[]> {
    type List = {
      webhookSubscriptions: { edges: { node: { topic: string; endpoint?: { callbackUrl?: string } } }[] };
    };
    const list = await this.graphql<List>(shop, token, LIST_WEBHOOKS);
    const have = new Set(
      list.webhookSubscriptions.edges
        .filter((e) => e.node.endpoint?.callbackUrl === callbackUrl)
        .map((e) => e.node.topic),
    );
    for (const [topic, name] of Object.entries(WEBHOOK_TOPICS)) {
      if (have.has(name)) continue;
      type Created = { webhookSubscriptionCreate: { userErrors: { message: string }[] } };
      const res = await this.graphql<Created>(shop, token, CREATE_WEBHOOK, {
        topic: name,
        webhookSubscription: { callbackUrl, format: 'JSON' },
      });
      const errors = res.webhookSubscriptionCreate.userErrors.filter(
        (e) => !/already been taken/.test(e.message),
      );
      if (errors.length)
        throw new AdminApiError('user', `${topic}: ${errors.map((e) => e.message).join('; ')}`);
    }
    return Object.keys(WEBHOOK_TOPICS) as InboundTopic[];
  }

  /**
   * Products by global id: GraphQL `nodes(ids:)`, else the REST `products.json?ids=` (the
   * same fallback as fulfilment). Unknown or deleted products are simply absent. Both
   * failing throws one AdminApiError naming both reasons.
   */
  async products(shop: string, token: string, ids: string[]): Promise<ProductLookup> {
    if (ids.length === 0) return { via: 'graphql', products: new Map() };
    try {
      return { via: 'graphql', products: await this.productsGraphql(shop, token, ids) };
    } catch (gqlErr) {
      try {
        return { via: 'rest', products: await this.productsRest(shop, token, ids) };
      } catch (restErr) {
        throw new AdminApiError(
          (restErr as AdminApiError).kind ?? 'http',
          `products: GraphQL: ${(gqlErr as Error).message}; REST: ${(restErr as Error).message}`,
        );
      }
    }
  }

  private async productsGraphql(shop: string, token: string, ids: string[]) {
    type Node = {
      id: string;
      title: string;
      vendor: string;
      productType: string;
      featuredImage: { url: string } | null;
    };
    const res = await this.graphql<{ nodes: (Node | null)[] }>(shop, token, PRODUCTS, { ids });
    return new Map(
      res.nodes
        .filter((n): n is Node => !!n?.id)
        .map((n) => [
          n.id,
          {
            title: n.title,
            vendor: n.vendor,
            productType: n.productType,
            imageUrl: n.featuredImage?.url ?? null,
          },
        ]),
    );
  }

  /** `GET products.json?ids=1,2&fields=…` (numeric ids; at most 250 a page, as the platform pages). */
  private async productsRest(shop: string, token: string, ids: string[]) {
    type Rest = {
      id: number;
      title?: string;
      vendor?: string;
      product_type?: string;
      image?: { src?: string } | null;
    };
    const byNumber = new Map(ids.map((gid) => [/\/(\d+)$/.exec(gid)?.[1] ?? '', gid]));
    byNumber.delete('');
    const numbers = [...byNumber.keys()];
    const out = new Map<string, ProductInfo>();
    for (let i = 0; i < numbers.length; i += REST_PAGE) {
      const q = new URLSearchParams({
        ids: numbers.slice(i, i + REST_PAGE).join(','),
        fields: 'id,title,vendor,product_type,image',
      });
      const body = (await this.rest(shop, token, 'GET', `products.json?${q}`)) as { products?: Rest[] };
      if (!Array.isArray(body?.products)) throw new AdminApiError('http', 'products missing from the answer');
      for (const p of body.products) {
        const gid = byNumber.get(String(p.id));
        if (!gid) continue;
        out.set(gid, {
          title: p.title ?? '',
          vendor: p.vendor ?? '',
          productType: p.product_type ?? '',
          imageUrl: p.image?.src ?? null,
        });
      }
    }
    return out;
  }

  /** Fulfils every open fulfillment order of the order through GraphQL. */
  async fulfilGraphql(shop: string, token: string, orderGid: string, t: Tracking): Promise<FulfilResult> {
    type Fos = { order: { fulfillmentOrders: { nodes: { id: string; status: string }[] } } | null };
    const fos = await this.graphql<Fos>(shop, token, FULFILLMENT_ORDERS, { id: orderGid });
    if (!fos.order) throw new AdminApiError('user', `order ${orderGid} not found`);
    const open = fos.order.fulfillmentOrders.nodes.filter(
      (n) => n.status === 'OPEN' || n.status === 'IN_PROGRESS',
    );
    if (open.length === 0) return { via: 'already', fulfillmentId: null };
    type Created = {
      fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: { message: string }[] };
    };
    const res = await this.graphql<Created>(shop, token, CREATE_FULFILLMENT, {
      fulfillment: {
        lineItemsByFulfillmentOrder: open.map((n) => ({ fulfillmentOrderId: n.id })),
        trackingInfo: { number: t.number, url: t.url, company: t.company },
        notifyCustomer: true,
      },
    });
    const { fulfillment, userErrors } = res.fulfillmentCreate;
    if (userErrors.length || !fulfillment)
      throw new AdminApiError('user', userErrors.map((e) => e.message).join('; ') || 'no fulfillment');
    return { via: 'graphql', fulfillmentId: fulfillment.id };
  }

  /** The same through the REST resources. */
  async fulfilRest(shop: string, token: string, orderGid: string, t: Tracking): Promise<FulfilResult> {
    const orderId = /\/(\d+)$/.exec(orderGid)?.[1];
    if (!orderId) throw new AdminApiError('user', `not an order id: ${orderGid}`);
    const fos = (await this.rest(shop, token, 'GET', `orders/${orderId}/fulfillment_orders.json`)) as {
      fulfillment_orders: { id: number; status: string }[];
    };
    if (!Array.isArray(fos?.fulfillment_orders))
      throw new AdminApiError('http', 'fulfillment_orders missing from the answer');
    const open = fos.fulfillment_orders.filter((f) => f.status === 'open' || f.status === 'in_progress');
    if (open.length === 0) return { via: 'already', fulfillmentId: null };
    const res = (await this.rest(shop, token, 'POST', 'fulfillments.json', {
      fulfillment: {
        line_items_by_fulfillment_order: open.map((f) => ({ fulfillment_order_id: f.id })),
        tracking_info: { number: t.number, url: t.url, company: t.company },
        notify_customer: true,
      },
    })) as { fulfillment?: { id: number } };
    return { via: 'rest', fulfillmentId: res.fulfillment ? String(res.fulfillment.id) : null };
  }

  private async request(
    shop: string,
    method: string,
    path: string,
    token: string | null,
    body?: object | null,
  ) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers[ACCESS_TOKEN_HEADER] = token;
    if (body) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.adminBase(shop) + path, {
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new AdminApiError('timeout', `${method} ${path} timed out`);
      throw new AdminApiError('network', `${method} ${path}: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new AdminApiError('http', `${method} ${path} answered ${res.status}`, res.status);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AdminApiError('http', `${method} ${path} answered a body that is not JSON`, res.status);
    }
  }
}
