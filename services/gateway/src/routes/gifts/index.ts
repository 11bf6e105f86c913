// The gift surface (spec › Endpoints › Certificates and gifts; architecture.md › Gifts),
// served by the certificates service's GiftService over gRPC: create, read, list, resend, revoke,
// the claim page and the claim.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as claim from './claim.js';
import * as create from './create.js';
import * as list from './list.js';
import * as manage from './manage.js';

export default async function gifts(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(create, list, manage, claim));
}
