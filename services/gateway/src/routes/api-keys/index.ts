// API keys: the versioned surface (`/api/v1/api-keys`, keys and sessions) and the enterprise
// dashboard's form (`/api/enterprise/api-keys`), both served by the keys service. Each
// endpoint is declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as activity from './activity.js';
import * as enterprise from './enterprise.js';
import * as keys from './keys.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(keys, activity, enterprise));
}
