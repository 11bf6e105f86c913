// The paid-order workload: the platform simulator's shop (the app installed by OAuth before
// the faults start) takes orders and marks them paid, and the simulator sends the signed
// `orders/paid` webhooks to the gateway as the platform would — sometimes two at once for one
// order, sometimes the same delivery again after it was answered. A delivery without a 200
// is retried with its webhook id until Hallmark acknowledges it (the platform's retry, backing
// off as the platform does: 1 s doubling to 10 s), also after the load stopped, so every paid
// order is heard.
import type { SentWebhook, Simulator } from '@hallmark/platform-sim';
import type { Component, History, PaidOrder } from './history.js';
import type { Rng } from './prng.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const WEBHOOK_DEPS: Component[] = ['gateway', 'platform', 'postgres'];
/** How long the platform retries an unacknowledged delivery. */
const RETRY_FOR_MS = 120_000;
/** The longest wait between two of its retries. */
const RETRY_MAX_WAIT_MS = 10_000;

export const orderGid = (orderId: number) => `gid://shopify/Order/${orderId}`;

export interface Shop {
  sim: Simulator;
  domain: string;
  productId: number;
}

export async function runOrders(h: History, shop: Shop, rng: Rng, stop: AbortSignal): Promise<void> {
  const retries: Promise<void>[] = [];
  while (!stop.aborted) {
    await sleep(rng.int(2500, 5000));
    if (stop.aborted) break;
    const units = rng.int(1, 3);
    const { order, sent: created } = await shop.sim.createOrder(shop.domain, {
      lineItems: [{ productId: shop.productId, quantity: units }],
    });
    const paid: PaidOrder = { orderId: order.id, units, webhooks: [] };
    h.orders.push(paid);
    for (const s of created) record(h, null, order.id, s);
    // orders/paid, sometimes twice at once (two deliveries of one order, different ids).
    const twice = rng.chance(0.25);
    const sent = (
      await Promise.all(Array.from({ length: twice ? 2 : 1 }, () => shop.sim.pay(shop.domain, order.id)))
    ).flat();
    for (const s of sent) record(h, paid, order.id, s);
    retries.push(deliver(h, shop, paid, rng.chance(0.3) ? rng.int(1, 2) : 0));
  }
  await Promise.all(retries);
}

/** Retries until some delivery was answered 200, then repeats that one `repeats` times at once. */
async function deliver(h: History, shop: Shop, paid: PaidOrder, repeats: number): Promise<void> {
  const first = paid.webhooks[0]!.webhookId;
  const until = Date.now() + RETRY_FOR_MS;
  for (let wait = 1000; !paid.webhooks.some((w) => w.status === 200) && Date.now() < until;) {
    await sleep(wait);
    wait = Math.min(wait * 2, RETRY_MAX_WAIT_MS);
    for (const s of await shop.sim.redeliver(shop.domain, first)) record(h, paid, paid.orderId, s);
  }
  const ok = paid.webhooks.find((w) => w.status === 200);
  if (!ok || repeats === 0) return;
  const again = await Promise.all(
    Array.from({ length: repeats }, () => shop.sim.redeliver(shop.domain, ok.webhookId)),
  );
  for (const s of again.flat()) record(h, paid, paid.orderId, s);
}

function record(h: History, paid: PaidOrder | null, orderId: number, s: SentWebhook): void {
  const status = typeof s.status === 'number' ? s.status : 0;
  paid?.webhooks.push({ webhookId: s.webhookId, status });
  h.calls.push({
    op: `platformWebhook ${s.topic}`,
    deps: WEBHOOK_DEPS,
    start: Date.parse(s.sentAt),
    end: Date.now(),
    status,
    ref: `${orderGid(orderId)} ${s.webhookId}`,
  });
}
