// Warranties (unversioned surface): set or change a certificate's warranty, and the
// enterprise's warranty template. PATCH takes an API key or a session of the owning enterprise
// and needs `transactions.update` (a warranty is an update of an issued certificate; sessions
// hold admin.*). The template routes take a user session, like the other /api/enterprise routes.
import type { WarrantyTemplate } from '@hallmark/proto/certificates/v1/warranty';
import type { FastifyInstance } from 'fastify';
import { presentPublicCertificate } from './certificates.js';
import { idParam, principalOf, type RouteDeps } from './shared.js';

const UPDATE = { auth: 'either' as const, scope: 'transactions.update' };
const SESSION = { auth: 'session' as const };

const text = (maxLength: number) => ({ type: 'string', maxLength });

const warrantyBody = {
  type: 'object',
  required: ['period', 'type', 'startDate', 'coverage', 'claimProcess', 'contactInfo'],
  additionalProperties: false,
  properties: {
    period: {
      anyOf: [
        { type: 'integer', enum: [1, 2, 3, 5, 10] },
        { type: 'string', enum: ['1', '2', '3', '5', '10', 'Lifetime'] },
      ],
      description: 'Years (1, 2, 3, 5, 10) or "Lifetime" (start + 100 years)',
    },
    type: {
      type: 'string',
      enum: ['Manufacturer', 'Extended', 'Limited', 'Full Coverage', 'Parts Only', 'Labor Only'],
    },
    startDate: { type: 'string', maxLength: 10, description: 'ISO date YYYY-MM-DD' },
    endDate: {
      type: 'string',
      maxLength: 10,
      description: 'ISO date; default start + period, set to override',
    },
    coverage: text(2000),
    exclusions: text(2000),
    claimProcess: text(2000),
    contactInfo: text(500),
    termsUrl: { type: 'string', maxLength: 2048, description: 'https URL' },
  },
};

interface WarrantyBody {
  period: number | string;
  type: string;
  startDate: string;
  endDate?: string;
  coverage: string;
  exclusions?: string;
  claimProcess: string;
  contactInfo: string;
  termsUrl?: string;
}

function presentTemplate(t: WarrantyTemplate) {
  return {
    id: t.id,
    name: t.name,
    fields: JSON.parse(t.fields_json) as unknown[],
    createdAt: t.created_at,
  };
}

export default async function warranty(app: FastifyInstance, { clients }: RouteDeps) {
  app.patch<{ Params: { id: string }; Body: WarrantyBody }>(
    '/api/certificates/:id/warranty',
    {
      config: UPDATE,
      schema: {
        tags: ['Certificates'],
        summary: "Set or change a certificate's warranty (provenance entry warranty_set / warranty_changed)",
        params: idParam('id'),
        body: warrantyBody,
      },
    },
    async (request) => {
      const b = request.body;
      const res = await clients.warranty.setWarranty({
        principal: principalOf(request),
        certificate_id: request.params.id,
        warranty: {
          period: String(b.period),
          type: b.type,
          start_date: b.startDate,
          end_date: b.endDate,
          coverage: b.coverage,
          exclusions: b.exclusions,
          claim_process: b.claimProcess,
          contact_info: b.contactInfo,
          terms_url: b.termsUrl,
        },
      });
      return {
        success: true,
        changed: res.changed,
        warranty: JSON.parse(res.warranty_json) as Record<string, unknown>,
        certificate: presentPublicCertificate(res.certificate!),
      };
    },
  );

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
