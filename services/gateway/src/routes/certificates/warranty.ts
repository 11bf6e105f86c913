// A certificate's warranty (unversioned surface): set or change it. Takes an API key or a
// session of the owning enterprise and needs `transactions.update` (a warranty is an update
// of an issued certificate; sessions hold admin.*).
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, idParams, str, Type, type Static } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { PublicCertificate, TAGS, Warranty } from './certificate.js';
import { presentPublicCertificate } from './public.js';

const UPDATE: Access = { auth: 'either', scope: 'transactions.update' };

const WarrantyBody = closed({
  period: Type.Unsafe<number | string>({
    anyOf: [
      { type: 'integer', enum: [1, 2, 3, 5, 10] },
      { type: 'string', enum: ['1', '2', '3', '5', '10', 'Lifetime'] },
    ],
    description: 'Years (1, 2, 3, 5, 10) or "Lifetime" (start + 100 years)',
  }),
  type: Type.Unsafe<string>({
    type: 'string',
    enum: ['Manufacturer', 'Extended', 'Limited', 'Full Coverage', 'Parts Only', 'Labor Only'],
  }),
  startDate: str(10, 'ISO date YYYY-MM-DD'),
  endDate: Type.Optional(str(10, 'ISO date; default start + period, set to override')),
  coverage: str(2000),
  exclusions: Type.Optional(str(2000)),
  claimProcess: str(2000),
  contactInfo: str(500),
  termsUrl: Type.Optional(str(2048, 'https URL')),
});

export const updateCertificateWarranty = defineEndpoint({
  method: 'PATCH',
  url: '/api/certificates/:id/warranty',
  operationId: 'updateCertificateWarranty',
  tags: TAGS,
  summary: "Set or change a certificate's warranty (provenance entry warranty_set / warranty_changed)",
  access: UPDATE,
  params: idParams('id'),
  body: WarrantyBody,
  responses: {
    200: {
      description: 'The warranty as stored and the certificate with its new provenance entry',
      schema: Type.Object({
        success: Type.Literal(true),
        changed: Type.Boolean({ description: 'False when the same warranty was set again' }),
        warranty: Warranty,
        certificate: PublicCertificate,
      }),
    },
  },
  handler: async (request, { clients, config }) => {
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
      success: true as const,
      changed: res.changed,
      warranty: JSON.parse(res.warranty_json) as Static<typeof Warranty>,
      certificate: presentPublicCertificate(res.certificate!, config.HALLMARK_PUBLIC_URL),
    };
  },
});
