// A webhook endpoint's public shape (spec › Webhook endpoints), defined once: the
// `WebhookEndpoint` component, and `presentEndpoint` that builds it from notify's record.
// The secret is in the create and rotate-secret answers only (notify sends it then only).
import type { WebhookEndpoint as EndpointRecord } from '@hallmark/proto/notify/v1/webhooks';
import { defineResource } from '../../endpoint/resource.js';
import { bool, list, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';

export const WebhookEndpoint = defineResource(
  'WebhookEndpoint',
  Type.Object({
    id: Type.String({ pattern: '^webhook_', maxLength: 64 }),
    url: str(2048),
    events: list(str(100), 50),
    status: str(32),
    description: Type.Optional(nullable(str(500))),
    secret: Type.Optional(str(200, 'whsec_…: in create and rotate-secret answers')),
    created_at: time,
    updated_at: Type.Optional(time),
    livemode: Type.Optional(bool),
    previous_secret_expires_at: Type.Optional(time),
  }),
);

export function presentEndpoint(e: EndpointRecord): Static<typeof WebhookEndpoint> {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status,
    description: e.description ?? null,
    ...(e.secret ? { secret: e.secret } : {}),
    created_at: e.created_at,
    updated_at: e.updated_at,
    livemode: e.livemode,
    ...(e.previous_secret_expires_at ? { previous_secret_expires_at: e.previous_secret_expires_at } : {}),
  };
}
