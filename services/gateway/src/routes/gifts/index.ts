// The gift surface (spec › Endpoints › Certificates and gifts; architecture.md › Gifts),
// served by the certificates service's GiftService over gRPC: create, read, resend, revoke,
// the claim page and the claim.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import claimRoutes from './claim.js';
import createGiftRoute from './create.js';
import { giftLimiters } from './limits.js';
import manageGiftRoutes from './manage.js';

export default async function gifts(app: FastifyInstance, deps: RouteDeps) {
  const limits = giftLimiters(app, deps.config);
  await app.register(createGiftRoute, { ...deps, limits });
  await app.register(manageGiftRoutes, { clients: deps.clients, limits });
  await app.register(claimRoutes, { ...deps, limits });
}
