// The enterprise's warranty template (`/api/enterprise/templates`, unversioned surface): the
// certificates service's fields a warranty is filled from. Not a document template (those are
// notify's, `routes/document-templates/`). A user session, like the other /api/enterprise routes.
import type { WarrantyTemplate } from '@hallmark/proto/certificates/v1/warranty';
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';

const SESSION = { auth: 'session' as const };

function presentTemplate(t: WarrantyTemplate) {
  return {
    id: t.id,
    name: t.name,
    fields: JSON.parse(t.fields_json) as unknown[],
    createdAt: t.created_at,
  };
}

export default async function warrantyTemplates(app: FastifyInstance, { clients }: RouteDeps) {
  app.post(
    '/api/enterprise/templates/init-warranty',
    {
      config: SESSION,
      schema: {
        tags: ['Enterprise'],
        summary: "Create the enterprise's warranty template with its 9 fields (idempotent)",
      },
    },
    async (request, reply) => {
      const t = await clients.warranty.initWarrantyTemplate({ principal: principalOf(request) });
      const { id, name, fields } = presentTemplate(t);
      return reply.status(t.created ? 201 : 200).send({ id, name, fields });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/enterprise/templates/:id',
    {
      config: SESSION,
      schema: { tags: ['Enterprise'], summary: 'One template of the enterprise', params: idParam('id') },
    },
    async (request) =>
      presentTemplate(
        await clients.warranty.getWarrantyTemplate(
          { principal: principalOf(request), template_id: request.params.id },
          { idempotent: true },
        ),
      ),
  );
}
