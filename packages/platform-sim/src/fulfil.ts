// Creating a fulfillment, shared by GraphQL and REST: every named fulfillment order must be
// open; it closes them. A second fulfillment of a closed order is refused, as on the platform.
import type { SimState, Shop, Fulfillment } from './state.js';

export function createFulfillment(
  state: SimState,
  shop: Shop,
  fulfillmentOrderIds: number[],
  t: {
    number: string | null;
    url: string | null;
    company: string | null;
    notifyCustomer: boolean;
    via: 'graphql' | 'rest';
  },
): { fulfillment: Fulfillment } | { error: string } {
  if (fulfillmentOrderIds.length === 0) return { error: 'lineItemsByFulfillmentOrder must not be empty' };
  const orders = [...shop.orders.values()];
  const fos = fulfillmentOrderIds.map((id) =>
    orders.flatMap((o) => o.fulfillmentOrders).find((fo) => fo.id === id),
  );
  if (fos.some((fo) => !fo)) return { error: 'Fulfillment order does not exist.' };
  if (fos.some((fo) => fo!.status !== 'OPEN')) return { error: 'Fulfillment order is not in an open state.' };
  for (const fo of fos) fo!.status = 'CLOSED';
  const fulfillment: Fulfillment = {
    id: state.id(),
    orderId: fos[0]!.orderId,
    fulfillmentOrderIds,
    trackingNumber: t.number,
    trackingUrl: t.url,
    trackingCompany: t.company,
    notifyCustomer: t.notifyCustomer,
    via: t.via,
    createdAt: new Date().toISOString(),
  };
  shop.fulfillments.push(fulfillment);
  return { fulfillment };
}
