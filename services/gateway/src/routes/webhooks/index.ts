// Webhooks: the versioned endpoints (`/api/v1/webhooks`, deliveries, tests, secrets) and the
// enterprise dashboard's subscriptions (`/api/enterprise/webhooks`) and the listen stream
// (`/api/v1/listen`), all served by notify; each endpoint declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as endpoints from './endpoints.js';
import * as enterprise from './enterprise.js';
import * as listen from './listen.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  // Closing the gateway ends every listen stream (their clients reconnect elsewhere).
  app.addHook('preClose', async () => listen.endListenStreams(app.server));
  registerEndpoints(app, deps, endpointsOf(endpoints, enterprise, listen));
}
