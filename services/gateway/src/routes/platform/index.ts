// The platform integration surface (spec › Endpoints › Platform integration), served by the
// platform service over gRPC. The inbound webhook route is its own encapsulated plugin (raw
// body); the others parse JSON as every route does.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import authRoutes from './auth.js';
import fulfillmentRoutes from './fulfillment.js';
import inboundWebhooks from './inbound.js';
import integrationRoutes from './integration.js';

export default async function platform(app: FastifyInstance, deps: RouteDeps) {
  await app.register(authRoutes, deps);
  await app.register(integrationRoutes, deps);
  await app.register(fulfillmentRoutes, deps);
  await app.register(inboundWebhooks, deps);
}
