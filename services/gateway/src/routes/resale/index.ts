// The resale surface (docs/resale.md), served by the certificates service's ResaleService and
// OwnershipService over gRPC: resale and the brand's approval, ownership links, export.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as exporting from './export.js';
import * as ownership from './ownership.js';
import * as policy from './policy.js';
import * as resale from './resale.js';

export default async function resaleRoutes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(resale, policy, ownership, exporting));
}
