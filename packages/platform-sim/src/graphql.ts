// The Admin GraphQL operations Hallmark sends, recognised by their root field (this is a
// stand-in, not a GraphQL engine): webhook subscriptions (create, list, delete), an order's
// fulfillment orders, fulfillment create, and products by id (read_products). Anything
// else answers the platform's "field doesn't exist" error.
import type { SimState, Shop } from './state.js';
import { gid, idOf } from './state.js';
import { createFulfillment } from './fulfil.js';

type Vars = Record<string, any>;
type Result = { data?: unknown; errors?: { message: string }[] };

const TOPICS: Record<string, string> = {
  ORDERS_CREATE: 'orders/create',
  ORDERS_PAID: 'orders/paid',
  ORDERS_CANCELLED: 'orders/cancelled',
  APP_UNINSTALLED: 'app/uninstalled',
};
const TOPIC_ENUM = Object.fromEntries(Object.entries(TOPICS).map(([k, v]) => [v, k]));

const subscriptionNode = (s: { id: number; topic: string; callbackUrl: string }) => ({
  id: gid('WebhookSubscription', s.id),
  topic: TOPIC_ENUM[s.topic],
  endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: s.callbackUrl },
});

export function runGraphql(
  state: SimState,
  shop: Shop,
  apiVersion: string,
  query: string,
  vars: Vars,
): Result {
  if (/\bwebhookSubscriptionCreate\b/.test(query)) {
    const topic = TOPICS[String(vars.topic)];
    const callbackUrl = String(vars.webhookSubscription?.callbackUrl ?? '');
    if (!topic)
      return {
        errors: [{ message: `Variable $topic of type WebhookSubscriptionTopic! was provided invalid value` }],
      };
    const userErrors = [];
    if (!/^https?:\/\//.test(callbackUrl))
      userErrors.push({ field: ['webhookSubscription', 'callbackUrl'], message: 'Address is invalid' });
    if ([...shop.webhooks.values()].some((w) => w.topic === topic && w.callbackUrl === callbackUrl))
      userErrors.push({
        field: ['webhookSubscription', 'callbackUrl'],
        message: 'Address for this topic has already been taken',
      });
    if (userErrors.length)
      return { data: { webhookSubscriptionCreate: { webhookSubscription: null, userErrors } } };
    const sub = { id: state.id(), topic, callbackUrl, apiVersion };
    shop.webhooks.set(sub.id, sub);
    return {
      data: { webhookSubscriptionCreate: { webhookSubscription: subscriptionNode(sub), userErrors: [] } },
    };
  }
  if (/\bwebhookSubscriptionDelete\b/.test(query)) {
    const id = idOf(String(vars.id));
    if (!shop.webhooks.delete(id))
      return {
        data: {
          webhookSubscriptionDelete: {
            deletedWebhookSubscriptionId: null,
            userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }],
          },
        },
      };
    return {
      data: { webhookSubscriptionDelete: { deletedWebhookSubscriptionId: String(vars.id), userErrors: [] } },
    };
  }
  if (/\bwebhookSubscriptions\b/.test(query)) {
    const nodes = [...shop.webhooks.values()].map(subscriptionNode);
    return { data: { webhookSubscriptions: { edges: nodes.map((node) => ({ node })), nodes } } };
  }
  if (/\bfulfillmentCreate(V2)?\b/.test(query)) {
    const input = vars.fulfillment ?? {};
    const foIds: number[] = (input.lineItemsByFulfillmentOrder ?? []).map((x: any) =>
      idOf(String(x.fulfillmentOrderId)),
    );
    const made = createFulfillment(state, shop, foIds, {
      number: input.trackingInfo?.number ?? null,
      url: input.trackingInfo?.url ?? null,
      company: input.trackingInfo?.company ?? null,
      notifyCustomer: !!input.notifyCustomer,
      via: 'graphql',
    });
    if ('error' in made)
      return {
        data: {
          fulfillmentCreate: {
            fulfillment: null,
            userErrors: [{ field: ['fulfillment'], message: made.error }],
          },
        },
      };
    const f = made.fulfillment;
    return {
      data: {
        fulfillmentCreate: {
          fulfillment: {
            id: gid('Fulfillment', f.id),
            status: 'SUCCESS',
            trackingInfo: [{ number: f.trackingNumber, url: f.trackingUrl, company: f.trackingCompany }],
          },
          userErrors: [],
        },
      },
    };
  }
  if (/\bfulfillmentOrders\b/.test(query)) {
    const order = shop.orders.get(idOf(String(vars.id ?? vars.orderId)));
    if (!order) return { data: { order: null } };
    const nodes = order.fulfillmentOrders.map((fo) => ({
      id: gid('FulfillmentOrder', fo.id),
      status: fo.status,
    }));
    return {
      data: {
        order: {
          id: gid('Order', order.id),
          fulfillmentOrders: { nodes, edges: nodes.map((node) => ({ node })) },
        },
      },
    };
  }
  if (/\bnodes\s*\(/.test(query)) {
    const ids: string[] = vars.ids ?? [];
    const nodes = ids.map((id) => {
      const p = shop.products.get(idOf(id));
      return p
        ? {
            __typename: 'Product',
            id,
            title: p.title,
            vendor: p.vendor,
            productType: p.productType,
            featuredImage: p.imageUrl ? { url: p.imageUrl } : null,
          }
        : null;
    });
    return { data: { nodes } };
  }
  return { errors: [{ message: 'Field does not exist on type QueryRoot or Mutation (not simulated)' }] };
}
