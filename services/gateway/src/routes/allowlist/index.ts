// /api/v1/allowlist: the contract allowlist (spec › Allowlist status, Endpoints › Allowlist).
// Scopes: users.update to request an address (rate group allowlist_write: each address costs
// the relayer gas), users.read to check it or wait for it. Whether the chain has an address
// is public; the request's details (status, error, retries, transaction) are shown only to
// an enterprise that asked for it (to others: `requested: false`, and 404 on the wait).
// Fields follow the spec's user fields (allowlistStatus, allowlistError,
// lastAllowlistAttempt, allowlistRetryCount). An invalid address is a 400 with param `address`.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as endpoints from './endpoints.js';

export default async function allowlist(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(endpoints));
}
