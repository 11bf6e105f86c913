// gRPC handler of MessagingService: proto <-> Messaging, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { MessagingServiceServer } from '@hallmark/proto/notify/v1/messaging';
import type { Messaging } from './service.js';

export function createMessagingHandlers(messaging: Messaging): AsyncHandlers<MessagingServiceServer> {
  return {
    async send(req) {
      const scope = scopeOf(req.principal, { actor: 'required' });
      const r = await messaging.send(scope, {
        channel: req.channel,
        to: req.to,
        subject: req.subject,
        body: req.body,
        html: req.html,
        templateId: req.template_id,
        variables: req.variables,
        locale: req.locale,
        idempotencyKey: req.idempotency_key,
      });
      return {
        message_id: r.messageId,
        channel: r.channel,
        provider: r.provider,
        provider_message_id: r.providerMessageId,
        status: r.status,
        replayed: r.replayed,
        sent_at: r.sentAt.toISOString(),
      };
    },
  };
}
