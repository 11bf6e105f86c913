// A certificate's warranty (unversioned surface): set or change it. Takes an API key or a
// session of the owning enterprise and needs `transactions.update` (a warranty is an update
// of an issued certificate; sessions hold admin.*).
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';
import { presentPublicCertificate } from './public.js';

const UPDATE = { auth: 'either' as const, scope: 'transactions.update' };

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

export default async function certificateWarranty(app: FastifyInstance, { clients }: RouteDeps) {
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
}
