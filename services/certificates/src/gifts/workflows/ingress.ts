// Talking to the gift workflow through Restate's ingress (kit's typed client, which carries
// the caller's request id and trace context): start it (once per gift: a repeat does
// nothing) and send it the claim and revoke signals.
import { callOpts, oncePerKey, restateIngress, sendOpts } from '@hallmark/kit/restate';
import type { GiftWorkflowIngress } from '../service.js';
import { GiftTransfer } from './gift.js';

export function giftWorkflowIngress(ingressUrl: string): GiftWorkflowIngress {
  const ingress = restateIngress(ingressUrl);
  const gift = (giftId: string) => ingress.workflowClient(GiftTransfer, giftId);
  return {
    start: (giftId) => oncePerKey(() => gift(giftId).workflowSubmit(sendOpts({ timeoutMs: 5000 }))),
    signal: (giftId, signal) => oncePerKey(() => gift(giftId)[signal](callOpts({ timeoutMs: 5000 }))),
  };
}
