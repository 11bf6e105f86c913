// "Send a test event", one implementation for both kinds of webhook (a versioned endpoint,
// an enterprise subscription): the same path form, body, status and answer record. Each
// declaration names only its RPC (notify signs a test event of the target's kind) and the
// envelope of its surface, so the call stays in its handler, one per route.
import type { FastifyRequest } from 'fastify';
import type { Delivery as DeliveryRecord } from '@hallmark/proto/notify/v1/webhooks';
import { closed, idParams, nullable, str, Type, type Static } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { presentDelivery } from './delivery.js';

/** The request half of both declarations. */
export const testEventRequest = {
  params: idParams('webhook_id'),
  body: nullable(closed({ event_type: Type.Optional(str(100)) })),
} as const;

type TestEventRequest = FastifyRequest<{
  Params: Static<typeof testEventRequest.params>;
  Body: Static<typeof testEventRequest.body>;
}>;

/**
 * Has `send` queue the test delivery for the webhook the path names (its own event type, or
 * the target's first) and presents it; the one call is `send`'s.
 */
export async function sendTestEvent(
  request: TestEventRequest,
  send: (target: {
    principal: ReturnType<typeof principalOf>;
    id: string;
    event_type?: string;
  }) => Promise<DeliveryRecord>,
) {
  return presentDelivery(
    await send({
      principal: principalOf(request),
      id: request.params.webhook_id,
      event_type: request.body?.event_type,
    }),
  );
}
