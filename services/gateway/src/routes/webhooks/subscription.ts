// An enterprise webhook subscription's public shape (spec › Enterprise webhook subscription):
// the unversioned surface's camelCase, the secret in the create answer only. Shown inline in
// the document (it has no component of its own).
import type { EnterpriseSubscription } from '@hallmark/proto/notify/v1/webhooks';
import { bool, int, list, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';

export const Subscription = Type.Object({
  id: str(64),
  url: str(2048),
  events: list(str(100), 50),
  enabled: bool,
  secret: Type.Optional(str(200, 'Only in the create answer')),
  createdAt: time,
  status: Type.Optional(
    oneOf(
      ['active', 'failing', 'disabled'],
      'failing: failed attempts in a row past a threshold; disabled: not enabled (set, or after more)',
    ),
  ),
  consecutiveFailures: Type.Optional(int()),
  lastFailureAt: Type.Optional(nullable(time)),
  lastError: Type.Optional(nullable(str(2000))),
});

export function presentSubscription(s: EnterpriseSubscription): Static<typeof Subscription> {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    enabled: s.enabled,
    ...(s.secret ? { secret: s.secret } : {}),
    createdAt: s.created_at,
    status: s.status,
    consecutiveFailures: s.consecutive_failures,
    lastFailureAt: s.last_failure_at ?? null,
    lastError: s.last_error ?? null,
  };
}
