// Assembly of the email and SMS half: providers from config, the message log, the
// MessagingService binding, and a worker whose stop closes the SMTP transports.
import { bind, Encryptor, type ServiceDeps } from '@hallmark/kit';
import { MessagingServiceService, type MessagingServiceServer } from '@hallmark/proto/notify/v1/messaging';
import type { DocumentTemplatesStore } from '../templates/store.js';
import { EmailSender } from './email.js';
import { createMessagingHandlers } from './rpc.js';
import { Messaging } from './service.js';
import { SmsSender } from './sms.js';
import { MessagesStore } from './store.js';

export { MESSAGE_RETENTION } from './store.js';

export const MESSAGING_PROTO = 'hallmark/notify/v1/messaging.proto';

export interface MessagingOptions {
  encryptionKeys: string;
  smtpUrl?: string;
  smtpFallbackUrl?: string;
  emailFrom: string;
  smsUrl?: string;
  smsFrom: string;
  providerTimeoutMs: number;
  /** How long a 'sending' claim holds its idempotency key (default 5 min). */
  leaseMs?: number;
}

export function createMessaging(
  { pool, log }: Pick<ServiceDeps, 'pool' | 'log'>,
  templates: DocumentTemplatesStore,
  o: MessagingOptions,
) {
  const email = o.smtpUrl
    ? new EmailSender({
        primaryUrl: o.smtpUrl,
        fallbackUrl: o.smtpFallbackUrl,
        timeoutMs: o.providerTimeoutMs,
        log,
      })
    : undefined;
  const sms = o.smsUrl
    ? new SmsSender({ url: o.smsUrl, from: o.smsFrom, timeoutMs: o.providerTimeoutMs, log })
    : undefined;
  const messaging = new Messaging({
    messages: new MessagesStore(pool, o.leaseMs ?? 300_000),
    templates,
    encryptor: new Encryptor(o.encryptionKeys),
    email,
    sms,
    emailFrom: o.emailFrom,
    log,
  });
  return {
    messaging,
    binding: bind<MessagingServiceServer>(MessagingServiceService, createMessagingHandlers(messaging)),
    worker: { start: async () => undefined, stop: async () => email?.close() },
  };
}
