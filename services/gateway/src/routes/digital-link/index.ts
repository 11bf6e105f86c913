// The GS1 Digital Link resolver (`/01/<gtin>[/21/<serial>]`, docs/digital-link.md).
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as resolver from './resolver.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(resolver));
}
