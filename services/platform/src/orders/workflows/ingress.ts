// Talking to the order workflow through Restate's ingress: start it (once per key; a repeat
// is accepted and does nothing) and tell it its bulk job finished. The caller's request id
// and trace context ride along as headers (kit `restateCallHeaders`).
import { restateCallHeaders } from '@hallmark/kit';
export interface OrderWorkflowIngress {
  start(shop: string, orderId: string): Promise<void>;
  jobFinished(shop: string, orderId: string): Promise<void>;
}

export const WORKFLOW_NAME = 'PlatformOrder';

/** The workflow key: shop and order global id (both free of `|`). */
export const orderKey = (shop: string, orderId: string) => `${shop}|${orderId}`;

export function splitOrderKey(key: string): { shop: string; orderId: string } {
  const i = key.indexOf('|');
  return { shop: key.slice(0, i), orderId: key.slice(i + 1) };
}

export function orderWorkflowIngress(ingressUrl: string): OrderWorkflowIngress {
  const post = async (shop: string, orderId: string, handler: string) => {
    const key = encodeURIComponent(orderKey(shop, orderId));
    const res = await fetch(new URL(`/${WORKFLOW_NAME}/${key}/${handler}/send`, ingressUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...restateCallHeaders() },
      body: '{}',
      // The webhook that starts a workflow must be answered within the platform's 5 s; a
      // slow Restate is left to the submitter.
      signal: AbortSignal.timeout(2000),
    });
    const text = await res.text();
    // 409: the workflow of this key already ran or runs (exactly one per order).
    if (!res.ok && res.status !== 409)
      throw new Error(`Restate refused ${handler} for ${orderId}: ${res.status} ${text}`);
  };
  return {
    start: (shop, orderId) => post(shop, orderId, 'run'),
    jobFinished: (shop, orderId) => post(shop, orderId, 'jobFinished'),
  };
}
