// /api/v1/vouchers: discount vouchers, each endpoint declared once (endpoint/define.ts).
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as redemption from './redemption.js';
import * as vouchers from './vouchers.js';

export default async function discountVouchers(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(vouchers, redemption));
}
