// The enterprise's warranty template (`/api/enterprise/templates`, unversioned surface): the
// certificates service's fields a warranty is filled from. Not a document template (those are
// notify's, `routes/document-templates/`). A user session, like the other /api/enterprise routes.
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints, type Access } from '../../endpoint/define.js';
import { idParams } from '../../endpoint/schema.js';
import { principalOf, type RouteDeps } from '../shared.js';
import { presentTemplate, WarrantyTemplate } from './template.js';

const SESSION: Access = { auth: 'session' };
const TAGS = ['Enterprise'];

export const initWarrantyTemplate = defineEndpoint({
  method: 'POST',
  url: '/api/enterprise/templates/init-warranty',
  operationId: 'initWarrantyTemplate',
  tags: TAGS,
  summary: "Create the enterprise's warranty template with its 9 fields (idempotent)",
  access: SESSION,
  responses: {
    200: { description: 'The warranty template existed already', schema: WarrantyTemplate },
    201: { description: 'The warranty template was created', schema: WarrantyTemplate },
  },
  handler: async (request, { clients, reply }) => {
    const t = await clients.warranty.initWarrantyTemplate({ principal: principalOf(request) });
    if (t.created) reply.status(201);
    // The creation time is the GET's business; this answer is the template's fields.
    const { id, name, fields } = presentTemplate(t);
    return { id, name, fields };
  },
});

export const getWarrantyTemplate = defineEndpoint({
  method: 'GET',
  url: '/api/enterprise/templates/:id',
  operationId: 'getWarrantyTemplate',
  tags: TAGS,
  summary: 'One template of the enterprise',
  access: SESSION,
  params: idParams('id'),
  responses: { 200: { description: 'The template', schema: WarrantyTemplate } },
  handler: async (request, { clients }) =>
    presentTemplate(
      await clients.warranty.getWarrantyTemplate(
        { principal: principalOf(request), template_id: request.params.id },
        { idempotent: true },
      ),
    ),
});

export default async function warrantyTemplates(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [initWarrantyTemplate, getWarrantyTemplate]);
}
