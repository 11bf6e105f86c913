// GET /api/certificates/search (issue 34): the brand finds its certificates by a voucher's
// reference number, a product (name or GTIN) or the owner's e-mail. One call to the
// certificates service's CertificateSearchService, which checks the criteria and keeps the
// answer inside the caller's enterprise and mode (another enterprise's certificates never
// match). A query without any criterion is refused here, before the call.
import { HallmarkError } from '@hallmark/kit';
import type { CertificateSummary as CertificateSummaryProto } from '@hallmark/proto/certificates/v1/search';
import { defineEndpoint, type Access } from '../../endpoint/define.js';
import { closed, int, list, nullable, str, time, Type, wrapped, type Static } from '../../endpoint/schema.js';
import { ApiPagination, apiPageOf, apiPageQuery, presentApiPagination } from '../pagination.js';
import { principalOf } from '../shared.js';
import { TAGS } from './certificate.js';

/** The brand's read, as the other certificate reads of the enterprise (service records' list). */
const READ: Access = { auth: 'either', scope: ['transactions.read', 'transactions.update'] };

const CertificateSummary = Type.Object(
  {
    id: str(64),
    name: str(200),
    status: Type.Unsafe<'pending' | 'minted' | 'burned'>({
      type: 'string',
      enum: ['pending', 'minted', 'burned'],
    }),
    tokenId: nullable(int()),
    gtin: nullable(str(14, 'GS1 GTIN, 14 digits; null without one')),
    serial: nullable(str(20, 'GS1 serial, with the GTIN; null without one')),
    referenceNumber: nullable(str(16, 'Its certificate voucher’s reference number; null without one')),
    createdAt: time,
    livemode: Type.Boolean(),
  },
  { additionalProperties: false, description: 'A certificate as the search lists it' },
);

const present = (c: CertificateSummaryProto): Static<typeof CertificateSummary> => ({
  id: c.id,
  name: c.name,
  status: c.status as 'pending' | 'minted' | 'burned',
  tokenId: c.token_id ?? null,
  gtin: c.gtin ?? null,
  serial: c.serial ?? null,
  referenceNumber: c.reference_number ?? null,
  createdAt: c.created_at,
  livemode: c.livemode,
});

export const searchCertificates = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/search',
  operationId: 'searchCertificates',
  tags: TAGS,
  summary: 'Search the enterprise’s certificates, newest first',
  description:
    'By `referenceNumber` (a certificate voucher’s HM-XXXX-XXXX-C, typed in any case, with or without ' +
    'hyphens), `product` (digits: the GTIN exactly; otherwise a case-insensitive part of the name, 2 to 200 ' +
    'characters) and `email` (the owner: the recipient of a certificate voucher or of a gift of the ' +
    'certificate, any case). Give at least one (none or only blank ones: 400 `parameter_missing`); several ' +
    'must all match. A malformed one: 400 `parameter_invalid` naming it. Only the caller’s enterprise and ' +
    'mode are searched. `{success, data:{certificates, pagination:{page, limit, totalPages, totalItems}}}`.',
  access: READ,
  querystring: closed({
    referenceNumber: Type.Optional(Type.String({ maxLength: 32, description: 'HM-XXXX-XXXX-C' })),
    product: Type.Optional(Type.String({ maxLength: 200, description: 'A GTIN, or part of the name' })),
    email: Type.Optional(Type.String({ maxLength: 254, description: 'The owner’s e-mail' })),
    ...apiPageQuery,
  }),
  responses: {
    200: {
      description: 'A page of matching certificates, newest first',
      schema: wrapped(
        Type.Object(
          { certificates: list(CertificateSummary, 100), pagination: ApiPagination },
          { additionalProperties: false },
        ),
      ),
    },
  },
  handler: async (request, { clients }) => {
    const q = request.query;
    if (![q.referenceNumber, q.product, q.email].some((v) => v?.trim()))
      throw new HallmarkError('parameter_missing', {
        param: 'query',
        message: 'Give at least one of referenceNumber, product or email.',
      });
    const page = apiPageOf(q);
    const res = await clients.search.searchCertificates(
      {
        principal: principalOf(request),
        reference_number: q.referenceNumber,
        product: q.product,
        email: q.email,
        page,
      },
      { idempotent: true },
    );
    return {
      success: true as const,
      data: {
        certificates: res.certificates.map(present),
        pagination: presentApiPagination(res.page, page),
      },
    };
  },
});
