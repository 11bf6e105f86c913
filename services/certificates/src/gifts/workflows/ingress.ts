// Talking to the gift workflow through Restate's ingress: start it (once per gift: a repeat
// is answered 409 and does nothing) and send it the claim and revoke signals. The caller's
// request id and trace context ride along as headers (kit `restateCallHeaders`).
import { restateCallHeaders } from '@hallmark/kit';
export interface GiftWorkflowIngress {
  start(giftId: string): Promise<void>;
  signal(giftId: string, signal: 'claim' | 'revoke'): Promise<void>;
}

export const GIFT_WORKFLOW = 'GiftTransfer';

export function giftWorkflowIngress(ingressUrl: string): GiftWorkflowIngress {
  const post = async (giftId: string, handler: string) => {
    const res = await fetch(
      new URL(`/${GIFT_WORKFLOW}/${encodeURIComponent(giftId)}/${handler}/send`, ingressUrl),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...restateCallHeaders() },
        body: '{}',
        signal: AbortSignal.timeout(5000),
      },
    );
    const text = await res.text();
    // 409: this gift's workflow already ran or runs (exactly one per gift).
    if (!res.ok && res.status !== 409)
      throw new Error(`Restate refused ${handler} for ${giftId}: ${res.status} ${text.slice(0, 200)}`);
  };
  return {
    start: (giftId) => post(giftId, 'run'),
    signal: (giftId, signal) => post(giftId, signal),
  };
}
