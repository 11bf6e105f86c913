// The verification pages (`/verify/:id`, its QR codes, token metadata) and the open
// verification API (verification.ts); `events.ts` records `document.verified` for them.
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as pages from './pages.js';
import * as verification from './verification.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(pages, verification));
}
