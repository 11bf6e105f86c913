// Wiring only: config, database, bus, gRPC server, workers, shutdown (webhooks,
// templates, messaging: see README.md).
import { runServiceMain } from '@hallmark/kit';
import path from 'node:path';
import { loadNotifyConfig } from './config.js';
import { createMessaging, MESSAGE_RETENTION, MESSAGING_PROTO } from './messaging/index.js';
import { createTemplates, TEMPLATES_PROTO } from './templates/index.js';
import { createWebhooks, WEBHOOKS_PROTO, WEBHOOKS_RETENTION } from './webhooks/index.js';

const config = loadNotifyConfig();

await runServiceMain({
  name: 'notify',
  address: config.HALLMARK_NOTIFY_ADDR,
  databaseServerUrl: config.DATABASE_URL,
  natsUrl: config.NATS_URL,
  databasePrefix: config.HALLMARK_DATABASE_PREFIX,
  logLevel: config.LOG_LEVEL,
  migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  protoFiles: [WEBHOOKS_PROTO, TEMPLATES_PROTO, MESSAGING_PROTO],
  retention: [...WEBHOOKS_RETENTION, MESSAGE_RETENTION],
  build: (deps) => {
    const webhooks = createWebhooks(deps, {
      encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
      outboundAllowHosts: config.HALLMARK_OUTBOUND_ALLOW_HOSTS,
      retryScheduleS: config.HALLMARK_WEBHOOK_RETRY_SCHEDULE,
      concurrency: config.HALLMARK_WEBHOOK_CONCURRENCY,
      endpointConcurrency: config.HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY,
      failingAfter: config.HALLMARK_WEBHOOK_FAILING_AFTER,
      disableAfter: config.HALLMARK_WEBHOOK_DISABLE_AFTER,
      maxListenSessions: config.HALLMARK_LISTEN_MAX_SESSIONS,
    });
    const templates = createTemplates(deps, config.HALLMARK_KEYS_ADDR);
    const messaging = createMessaging(deps, templates.store, {
      encryptionKeys: config.HALLMARK_ENCRYPTION_KEYS,
      smtpUrl: config.SMTP_URL,
      smtpFallbackUrl: config.SMTP_FALLBACK_URL,
      emailFrom: config.HALLMARK_EMAIL_FROM,
      smsUrl: config.HALLMARK_SMS_URL,
      smsFrom: config.HALLMARK_SMS_FROM,
      providerTimeoutMs: config.HALLMARK_NOTIFY_PROVIDER_TIMEOUT_MS,
    });
    return {
      services: [webhooks.binding, templates.binding, messaging.binding],
      workers: [...webhooks.workers, messaging.worker, templates.worker],
    };
  },
});
