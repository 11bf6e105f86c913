// The Admin GraphQL documents Hallmark sends (API version HALLMARK_PLATFORM_API_VERSION).
export const WEBHOOK_TOPICS = {
  'orders/create': 'ORDERS_CREATE',
  'orders/paid': 'ORDERS_PAID',
  'orders/cancelled': 'ORDERS_CANCELLED',
  'app/uninstalled': 'APP_UNINSTALLED',
} as const;

export type InboundTopic = keyof typeof WEBHOOK_TOPICS;

export const LIST_WEBHOOKS = `query HallmarkWebhooks {
  webhookSubscriptions(first: 100) { edges { node { id topic endpoint { __typename ... on WebhookHttpEndpoint { callbackUrl } } } } }
}`;

export const CREATE_WEBHOOK = `mutation HallmarkWebhookCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic }
    userErrors { field message }
  }
}`;

export const FULFILLMENT_ORDERS = `query HallmarkFulfillmentOrders($id: ID!) {
  order(id: $id) { id fulfillmentOrders(first: 50) { nodes { id status } } }
}`;

export const CREATE_FULFILLMENT = `mutation HallmarkFulfil($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status }
    userErrors { field message }
  }
}`;

export const PRODUCTS = `query HallmarkProducts($ids: [ID!]!) {
  nodes(ids: $ids) { ... on Product { id title vendor productType featuredImage { url } } }
}`;
