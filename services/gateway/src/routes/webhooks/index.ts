// Webhooks: the versioned endpoints (`/api/v1/webhooks`, deliveries, tests, secrets) and the
// enterprise dashboard's subscriptions (`/api/enterprise/webhooks`) and the listen stream
// (`/api/v1/listen`), all served by notify.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import webhookEndpoints from './endpoints.js';
import enterpriseWebhooks from './enterprise.js';
import listenRoute from './listen.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(webhookEndpoints, deps);
  await app.register(enterpriseWebhooks, deps);
  await app.register(listenRoute, deps);
}
