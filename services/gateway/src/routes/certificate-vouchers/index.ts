// Certificate vouchers (unversioned surface): the public view page a voucher's URL points at
// (`/vouchers/:id`, server-rendered HTML with the verification page's strict CSP), its public
// JSON, and the claim by the recipient's user session, which moves the certificate's token to
// the recipient's own custodial wallet (claim.ts); the issuer voids an unclaimed one (void.ts). `:id` is the voucher id (`v_…`) or its
// reference number (`HM-XXXX-XXXX-C`, forgiving of case, hyphens and O/0, I/1 mix-ups).
//
// The public routes use the rate group `public` (per client address).
import { issuerFrom } from '../../pages/issuer.js';
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, endpointsOf, registerEndpoints } from '../../endpoint/define.js';
import { Type, wrapped, type Static } from '../../endpoint/schema.js';
import {
  renderVoucherNotFoundPage,
  renderVoucherPage,
  renderVoucherUnavailablePage,
} from '../../pages/voucher.js';
import { sendPage } from '../../pages/shell.js';
import type { RouteDeps } from '../shared.js';
import { verifyUrl } from '../verify/pages.js';
import * as claim from './claim.js';
import { voidCertificateVoucher } from './void.js';
import { ID_RE, idParams, notFound, PUBLIC, TAGS } from './common.js';
import { CertificateVoucher, presentVoucher, VoucherCertificate } from './voucher.js';

export const getCertificateVoucherPage = defineEndpoint({
  method: 'GET',
  url: '/vouchers/:id',
  operationId: 'getCertificateVoucherPage',
  tags: TAGS,
  summary: 'View page of a certificate voucher (HTML; no authentication)',
  access: PUBLIC,
  params: idParams,
  responses: { 200: { description: 'The certificate voucher page', contentType: 'text/html' } },
  handler: async (request, { clients, config, reply }) => {
    const { id } = request.params;
    if (!ID_RE.test(id)) return sendPage(reply, 404, renderVoucherNotFoundPage(id));
    const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
    const claimUrl = (id: string) => `${base}/api/certificates/vouchers/${encodeURIComponent(id)}/claim`;
    try {
      const view = await clients.certificateVouchers.getPublicVoucher(
        { voucher_id: id },
        { idempotent: true },
      );
      const v = view.voucher!;
      return sendPage(
        reply,
        200,
        renderVoucherPage(
          view,
          { verify: verifyUrl(base, v.certificate_id), claim: claimUrl(v.id) },
          issuerFrom(view.issuer),
        ),
      );
    } catch (err) {
      if (err instanceof HallmarkError && err.code === 'resource_not_found') {
        return sendPage(reply, 404, renderVoucherNotFoundPage(id));
      }
      request.log.warn({ err }, 'voucher page: read failed');
      return sendPage(reply, 503, renderVoucherUnavailablePage());
    }
  },
});

export const getCertificateVoucher = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/vouchers/:id',
  operationId: 'getCertificateVoucher',
  tags: TAGS,
  summary: 'Public read of a certificate voucher and its certificate (no authentication)',
  access: PUBLIC,
  params: idParams,
  responses: {
    200: {
      description: 'The voucher and its certificate',
      schema: wrapped(Type.Object({ voucher: CertificateVoucher, certificate: VoucherCertificate })),
    },
  },
  handler: async (request, { clients }) => {
    const { id } = request.params;
    if (!ID_RE.test(id)) throw notFound(id);
    const view = await clients.certificateVouchers.getPublicVoucher({ voucher_id: id }, { idempotent: true });
    return {
      success: true as const,
      data: {
        voucher: presentVoucher(view.voucher!),
        certificate: JSON.parse(view.certificate_json) as Static<typeof VoucherCertificate>,
      },
    };
  },
});

export default async function certificateVouchers(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [
    getCertificateVoucherPage,
    getCertificateVoucher,
    ...endpointsOf(claim),
    voidCertificateVoucher,
  ]);
}
