// Document templates (`/api/v1/templates`, notify's), each endpoint declared once
// (endpoint/define.ts): templates and versions, then who may use them. Not the warranty
// template (`routes/warranty-templates/`).
import type { FastifyInstance } from 'fastify';
import { endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import type { RouteDeps } from '../shared.js';
import * as access from './access.js';
import * as templates from './templates.js';
import * as versions from './versions.js';

export default async function routes(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, endpointsOf(templates, versions, access));
}
