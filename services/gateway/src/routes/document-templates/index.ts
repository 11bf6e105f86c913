// Document templates (`/api/v1/templates`, notify's): templates and versions, then who may use
// them. Not the warranty template (`routes/warranty-templates/`).
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../shared.js';
import documentTemplates from './templates.js';
import templateAccess from './access.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  await app.register(documentTemplates, deps);
  await app.register(templateAccess, deps);
}
