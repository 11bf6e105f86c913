// The platform integration surface (spec › Endpoints › Platform integration), served by the
// platform service over gRPC, each endpoint declared once (endpoint/define.ts). The inbound
// webhook endpoint is registered in its own encapsulated plugin (raw body); the others parse
// JSON as every route does.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as auth from './auth.js';
import * as fulfillment from './fulfillment.js';
import inboundWebhooks from './inbound.js';
import * as integration from './integration.js';

export default async function platform(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(auth, integration, fulfillment));
  await app.register(inboundWebhooks, deps);
}
