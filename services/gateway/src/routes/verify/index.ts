// The verification pages (`/verify/:id`, its QR codes, token metadata); `events.ts` records
// `document.verified` for them.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import verifyPages from './pages.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(verifyPages, deps);
}
