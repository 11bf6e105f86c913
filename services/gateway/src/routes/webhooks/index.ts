// Webhooks: the versioned endpoints (`/api/v1/webhooks`, deliveries, tests, secrets) and the
// enterprise dashboard's subscriptions (`/api/enterprise/webhooks`) and the listen stream
// (`/api/v1/listen`), all served by notify; each endpoint declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhookEndpoint,
} from './endpoints.js';
import {
  createEnterpriseWebhook,
  deleteEnterpriseWebhook,
  getEnterpriseWebhook,
  listEnterpriseWebhookDeliveries,
  listEnterpriseWebhooks,
  sendTestEnterpriseWebhook,
  updateEnterpriseWebhook,
} from './enterprise.js';
import { endListenStreams, listenToEvents, listListenDeliveries } from './listen.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  // Closing the gateway ends every listen stream (their clients reconnect elsewhere).
  app.addHook('preClose', async () => endListenStreams(app.server));
  registerEndpoints(app, deps, [
    createWebhookEndpoint,
    listWebhookEndpoints,
    getWebhookEndpoint,
    updateWebhookEndpoint,
    deleteWebhookEndpoint,
    listWebhookDeliveries,
    retryWebhookDelivery,
    sendTestWebhook,
    rotateWebhookSecret,
    createEnterpriseWebhook,
    listEnterpriseWebhooks,
    getEnterpriseWebhook,
    deleteEnterpriseWebhook,
    updateEnterpriseWebhook,
    listEnterpriseWebhookDeliveries,
    sendTestEnterpriseWebhook,
    listenToEvents,
    listListenDeliveries,
  ]);
}
