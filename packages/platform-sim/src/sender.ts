// Sending webhooks like the platform: a POST per subscription of the topic, the raw JSON
// body signed (base64 HMAC-SHA256, app secret) and the platform's headers; a delivery id
// (`X-Platform-Webhook-Id`) that a redelivery repeats; a 5 s answer deadline.
import { randomUUID } from 'node:crypto';
import { signWebhook } from './signing.js';
import type { SentWebhook, Shop } from './state.js';

export const WEBHOOK_TIMEOUT_MS = 5000;

export async function sendWebhook(
  shop: Shop,
  topic: string,
  payload: unknown,
  opts: { secret: string; apiVersion: string; webhookId?: string },
): Promise<SentWebhook[]> {
  const body = JSON.stringify(payload);
  const subs = [...shop.webhooks.values()].filter((w) => w.topic === topic);
  return Promise.all(
    subs.map(async (sub) => {
      const webhookId = opts.webhookId ?? randomUUID();
      const sent: SentWebhook = {
        webhookId,
        topic,
        callbackUrl: sub.callbackUrl,
        body,
        status: 'error',
        sentAt: new Date().toISOString(),
      };
      try {
        const res = await fetch(sub.callbackUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-platform-hmac-sha256': signWebhook(body, opts.secret),
            'x-platform-shop-domain': shop.domain,
            'x-platform-topic': topic,
            'x-platform-api-version': sub.apiVersion || opts.apiVersion,
            'x-platform-webhook-id': webhookId,
            'x-platform-triggered-at': sent.sentAt,
          },
          body,
          signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        sent.status = res.status;
      } catch {
        sent.status = 'error';
      }
      shop.sent.push(sent);
      return sent;
    }),
  );
}
