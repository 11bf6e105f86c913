// The REST fallback: an order's fulfillment orders and fulfillment create, in the
// platform's REST shapes (snake_case bodies, 422 `{errors}` on refusal).
import { createFulfillment } from './fulfil.js';
import type { SimState, Shop } from './state.js';

export type RestReply = { status: number; body: unknown };

export function runRest(state: SimState, shop: Shop, method: string, resource: string, body: any): RestReply {
  const foMatch = /^orders\/(\d+)\/fulfillment_orders\.json$/.exec(resource);
  if (method === 'GET' && foMatch) {
    const order = shop.orders.get(Number(foMatch[1]));
    if (!order) return { status: 404, body: { errors: 'Not Found' } };
    return {
      status: 200,
      body: {
        fulfillment_orders: order.fulfillmentOrders.map((fo) => ({
          id: fo.id,
          order_id: fo.orderId,
          status: fo.status.toLowerCase(),
          line_items: order.lineItems.map((li) => ({
            line_item_id: li.id,
            quantity: li.quantity,
            fulfillable_quantity: fo.status === 'OPEN' ? li.quantity : 0,
          })),
        })),
      },
    };
  }
  if (method === 'POST' && resource === 'fulfillments.json') {
    const f = body?.fulfillment ?? {};
    const ids: number[] = (f.line_items_by_fulfillment_order ?? []).map((x: any) =>
      Number(x.fulfillment_order_id),
    );
    const made = createFulfillment(state, shop, ids, {
      number: f.tracking_info?.number ?? null,
      url: f.tracking_info?.url ?? null,
      company: f.tracking_info?.company ?? null,
      notifyCustomer: !!f.notify_customer,
      via: 'rest',
    });
    if ('error' in made) return { status: 422, body: { errors: { base: [made.error] } } };
    const x = made.fulfillment;
    return {
      status: 201,
      body: {
        fulfillment: {
          id: x.id,
          order_id: x.orderId,
          status: 'success',
          tracking_number: x.trackingNumber,
          tracking_url: x.trackingUrl,
          tracking_company: x.trackingCompany,
          created_at: x.createdAt,
        },
      },
    };
  }
  return { status: 404, body: { errors: 'Not Found' } };
}
