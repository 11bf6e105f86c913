// The REST fallback: products (by ids, or one), an order's fulfillment orders and
// fulfillment create, in the platform's REST shapes (snake_case bodies, numeric ids,
// 422 `{errors}` on refusal).
import { createFulfillment } from './fulfil.js';
import { gid, type Product, type SimState, type Shop } from './state.js';

export type RestReply = { status: number; body: unknown };

/** A product as the REST Admin API answers it (`image` is the featured image, or null). */
function restProduct(p: Product, fields: string[] | null): Record<string, unknown> {
  const image = p.imageUrl ? { id: p.id * 10 + 1, product_id: p.id, position: 1, src: p.imageUrl } : null;
  const full: Record<string, unknown> = {
    id: p.id,
    admin_graphql_api_id: gid('Product', p.id),
    title: p.title,
    vendor: p.vendor,
    product_type: p.productType,
    status: 'active',
    variants: [{ id: p.variantId, product_id: p.id, sku: p.sku, price: p.price }],
    image,
    images: image ? [image] : [],
  };
  // `fields=id,title,…` trims the answer to those properties, as on the platform.
  return fields ? Object.fromEntries(Object.entries(full).filter(([k]) => fields.includes(k))) : full;
}

export function runRest(
  state: SimState,
  shop: Shop,
  method: string,
  resource: string,
  body: any,
  query: URLSearchParams = new URLSearchParams(),
): RestReply {
  const fields =
    query
      .get('fields')
      ?.split(',')
      .map((f) => f.trim()) ?? null;
  if (method === 'GET' && resource === 'products.json') {
    // `ids=1,2,3` (up to 250, the platform's page limit); unknown ids are simply absent.
    const ids = query.get('ids')?.split(',').map(Number);
    const all = [...shop.products.values()];
    const chosen = ids ? all.filter((p) => ids.includes(p.id)) : all;
    return { status: 200, body: { products: chosen.slice(0, 250).map((p) => restProduct(p, fields)) } };
  }
  const productMatch = /^products\/(\d+)\.json$/.exec(resource);
  if (method === 'GET' && productMatch) {
    const p = shop.products.get(Number(productMatch[1]));
    if (!p) return { status: 404, body: { errors: 'Not Found' } };
    return { status: 200, body: { product: restProduct(p, fields) } };
  }
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
