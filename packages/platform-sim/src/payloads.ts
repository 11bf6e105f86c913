// Order and app webhook bodies in the platform's REST shape (snake_case, numeric ids plus
// `admin_graphql_api_id`), the shape its `orders/*` webhooks carry.
import { gid, type Order } from './state.js';

export function orderPayload(order: Order, shopDomain: string): Record<string, unknown> {
  const total = order.lineItems.reduce((sum, li) => sum + Number(li.product.price) * li.quantity, 0);
  return {
    id: order.id,
    admin_graphql_api_id: gid('Order', order.id),
    name: order.name,
    order_number: order.number,
    number: order.number - 1000,
    email: order.email,
    contact_email: order.email,
    created_at: order.createdAt,
    updated_at: new Date().toISOString(),
    processed_at: order.createdAt,
    cancelled_at: order.cancelledAt,
    cancel_reason: order.cancelledAt ? 'customer' : null,
    currency: 'USD',
    presentment_currency: 'USD',
    total_price: total.toFixed(2),
    subtotal_price: total.toFixed(2),
    financial_status: order.financialStatus,
    fulfillment_status: order.fulfillmentOrders.every((fo) => fo.status === 'CLOSED') ? 'fulfilled' : null,
    test: false,
    order_status_url: `https://${shopDomain}/orders/${order.id}/status`,
    customer: {
      id: order.customer.id,
      admin_graphql_api_id: gid('Customer', order.customer.id),
      email: order.customer.email,
      first_name: order.customer.firstName,
      last_name: order.customer.lastName,
    },
    line_items: order.lineItems.map((li) => ({
      id: li.id,
      admin_graphql_api_id: gid('LineItem', li.id),
      title: li.product.title,
      name: li.product.title,
      quantity: li.quantity,
      current_quantity: li.quantity,
      fulfillable_quantity: li.quantity,
      sku: li.product.sku,
      vendor: li.product.vendor,
      product_id: li.product.id,
      variant_id: li.product.variantId,
      variant_title: null,
      price: li.product.price,
      requires_shipping: true,
      taxable: true,
      gift_card: false,
      fulfillment_status: null,
      properties: [],
    })),
  };
}

export const uninstalledPayload = (shopDomain: string) => ({
  id: 1,
  name: shopDomain.split('.')[0],
  domain: shopDomain,
  myshopify_domain: shopDomain,
});
