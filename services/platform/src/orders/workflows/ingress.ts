// Talking to the order workflow through Restate's ingress (kit's typed client, which carries
// the caller's request id and trace context): start it (once per key; a repeat does
// nothing) and tell it its bulk job finished.
import { callOpts, oncePerKey, restateIngress, sendOpts } from '@hallmark/kit/restate';
import { orderKey, PlatformOrder } from './order-paid.js';

export interface OrderWorkflowIngress {
  start(shop: string, orderId: string): Promise<void>;
  jobFinished(shop: string, orderId: string): Promise<void>;
}

// The webhook that starts a workflow must be answered within the platform's 5 s; a slow
// Restate is left to the submitter.
const TIMEOUT_MS = 2000;

export function orderWorkflowIngress(ingressUrl: string): OrderWorkflowIngress {
  const ingress = restateIngress(ingressUrl);
  const order = (shop: string, orderId: string) =>
    ingress.workflowClient(PlatformOrder, orderKey(shop, orderId));
  return {
    start: (shop, orderId) =>
      oncePerKey(() => order(shop, orderId).workflowSubmit(sendOpts({ timeoutMs: TIMEOUT_MS }))),
    jobFinished: (shop, orderId) =>
      oncePerKey(() => order(shop, orderId).jobFinished(callOpts({ timeoutMs: TIMEOUT_MS }))),
  };
}
