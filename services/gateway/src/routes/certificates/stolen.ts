// Lost and stolen (unversioned surface, docs/lost-and-stolen.md): report, clear, list, recover,
// and the enterprise's clearing policy. Each route makes one call to the certificates
// service's LostAndStolenService, which decides who the caller is from the principal and the
// certificate: the brand (an API key with `transactions.update`, or a session of its users)
// or the owner (a user session whose own custodial wallet holds the certificate); anyone
// else is answered as an unknown certificate.
import type { StolenReport } from '@hallmark/proto/certificates/v1/stolen';
import type { Access } from '../../endpoint/define.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, idParams, list, nullable, str, time, Type, type Static } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { PublicCertificate, TAGS } from './certificate.js';
import { presentPublicCertificate } from './public.js';

/** The brand (API key with transactions.update) or the owner (a user session; sessions hold admin.*). */
const BRAND_OR_OWNER: Access = { auth: 'either', scope: 'transactions.update' };

const kindSchema = Type.Unsafe<'stolen' | 'lost'>({ type: 'string', enum: ['stolen', 'lost'] });
const Actor = Type.Object({
  type: Type.Unsafe<'brand' | 'owner'>({ type: 'string', enum: ['brand', 'owner'] }),
  id: str(64, 'The API key (apikey_…) or user (user_…)'),
});

const StolenReportSchema = Type.Object(
  {
    certificateId: str(64),
    kind: kindSchema,
    reason: str(1000),
    reportedAt: time,
    reportedBy: Actor,
    clearedAt: nullable(time),
    clearedBy: nullable(Actor),
    clearReason: nullable(str(1000)),
    recoveredTo: nullable(str(42, 'The address a brand recovery moved the token to')),
  },
  { description: 'A lost or stolen report as the brand and its reporter read it' },
);

function presentReport(r: StolenReport): Static<typeof StolenReportSchema> {
  return {
    certificateId: r.certificate_id,
    kind: r.kind as 'stolen' | 'lost',
    reason: r.reason,
    reportedAt: r.reported_at,
    reportedBy: { type: r.reported_by!.type as 'brand' | 'owner', id: r.reported_by!.id },
    clearedAt: r.cleared_at ?? null,
    clearedBy: r.cleared_by ? { type: r.cleared_by.type as 'brand' | 'owner', id: r.cleared_by.id } : null,
    clearReason: r.clear_reason ?? null,
    recoveredTo: r.recovered_to ?? null,
  };
}

const reason = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: '1–1,000 characters; kept for the brand, never shown publicly',
});
const ReportAnswer = Type.Object({
  success: Type.Literal(true),
  report: StolenReportSchema,
  certificate: PublicCertificate,
});

export const reportCertificateStolen = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/stolen',
  operationId: 'reportCertificateStolen',
  tags: TAGS,
  summary: 'Report a certificate stolen or lost (the brand or the owner)',
  description:
    'The brand (API key with `transactions.update`) or the owner (a user session whose custodial wallet ' +
    'holds the certificate) reports it. Until the report is cleared every hand-over of the certificate ' +
    '(transfer, gift and its claim, certificate voucher and its claim, resale) is refused 409 ' +
    '`certificate_reported_stolen`, the verify page shows a banner, and `certificate.reported_stolen` ' +
    'is delivered to webhook endpoints subscribed to it. A second report while one is open: 409 ' +
    '`certificate_reported_stolen`; anyone else: 404.',
  access: BRAND_OR_OWNER,
  params: idParams('id'),
  body: closed({ kind: kindSchema, reason }),
  responses: {
    201: { description: 'The report and the certificate as anyone now reads it', schema: ReportAnswer },
  },
  handler: async (request, { clients, config }) => {
    const res = await clients.stolen.reportStolen({
      principal: principalOf(request),
      certificate_id: request.params.id,
      kind: request.body.kind,
      reason: request.body.reason,
    });
    return {
      success: true as const,
      report: presentReport(res.report!),
      certificate: presentPublicCertificate(res.certificate!, config.HALLMARK_PUBLIC_URL),
    };
  },
});

export const clearCertificateStolen = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/stolen/clear',
  operationId: 'clearCertificateStolen',
  tags: TAGS,
  summary: 'Clear a lost or stolen report (as the brand’s policy allows)',
  description:
    'Policy `brand` (default): only the brand clears. `brand_or_reporter`: also the owner who reported ' +
    'it. Anyone else known to the certificate: 403 `insufficient_permissions`; no open report: 422. ' +
    'Fires `certificate.recovered`.',
  access: BRAND_OR_OWNER,
  params: idParams('id'),
  body: closed({ reason }),
  responses: { 200: { description: 'The cleared report and the certificate', schema: ReportAnswer } },
  handler: async (request, { clients, config }) => {
    const res = await clients.stolen.clearStolen({
      principal: principalOf(request),
      certificate_id: request.params.id,
      reason: request.body.reason,
    });
    return {
      success: true as const,
      report: presentReport(res.report!),
      certificate: presentPublicCertificate(res.certificate!, config.HALLMARK_PUBLIC_URL),
    };
  },
});

export const listCertificateStolenReports = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/:id/stolen',
  operationId: 'listCertificateStolenReports',
  tags: TAGS,
  summary: 'A certificate’s lost and stolen reports, newest first (the brand)',
  access: BRAND_OR_OWNER,
  params: idParams('id'),
  responses: {
    200: {
      description: 'Every report, open or cleared, with reasons',
      schema: Type.Object({ success: Type.Literal(true), reports: list(StolenReportSchema, 1000) }),
    },
  },
  handler: async (request, { clients }) => {
    const res = await clients.stolen.listStolenReports({
      principal: principalOf(request),
      certificate_id: request.params.id,
    });
    return { success: true as const, reports: res.reports.map(presentReport) };
  },
});

export const recoverCertificate = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/:id/recover',
  operationId: 'recoverCertificate',
  tags: TAGS,
  summary: 'Recover a certificate to a new owner (the brand)',
  description:
    'Moves the token to a user’s custodial wallet (`toUserId`) or an address (`toAddress`) with a recorded ' +
    'reason, even while it is reported stolen; provenance `recovered`; the open report is cleared when the ' +
    'transfer confirms (`certificate.recovered`). Works only while a Hallmark custodial wallet holds the ' +
    'token: from a self-custody wallet it is refused 422 (recovery through the contract is not available). ' +
    'Idempotent by `idempotencyKey`. Answers once confirmed, or `sent` after a bounded wait.',
  access: BRAND_OR_OWNER,
  params: idParams('id'),
  body: closed({
    idempotencyKey: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key answers the same recovery',
    }),
    toUserId: Type.Optional(str(64, 'user_…: that user’s custodial wallet')),
    toAddress: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', maxLength: 42 })),
    reason,
  }),
  responses: {
    200: {
      description: 'The recovery’s transfer and the certificate',
      schema: Type.Object({
        success: Type.Literal(true),
        status: Type.Unsafe<string>({
          type: 'string',
          enum: ['pending', 'signed', 'sent', 'confirmed', 'failed'],
        }),
        toAddress: str(42),
        transactionHash: nullable(str(66)),
        replayed: Type.Boolean(),
        certificate: PublicCertificate,
      }),
    },
  },
  handler: async (request, { clients, config }) => {
    const b = request.body;
    const res = await clients.stolen.recoverCertificate({
      principal: principalOf(request),
      certificate_id: request.params.id,
      idempotency_key: b.idempotencyKey,
      to_user_id: b.toUserId,
      to_address: b.toAddress,
      reason: b.reason,
    });
    return {
      success: true as const,
      status: res.status,
      toAddress: res.to_address,
      transactionHash: res.transaction_hash ?? null,
      replayed: res.replayed,
      certificate: presentPublicCertificate(res.certificate!, config.HALLMARK_PUBLIC_URL),
    };
  },
});

const Policy = Type.Object({
  success: Type.Literal(true),
  stolenClearedBy: Type.Unsafe<'brand' | 'brand_or_reporter'>({
    type: 'string',
    enum: ['brand', 'brand_or_reporter'],
  }),
});
/** The brand's own setting: an API key with transactions.update or a session of the enterprise. */
const POLICY: Access = { auth: 'either', scope: 'transactions.update' };

export const getStolenPolicy = defineEndpoint({
  method: 'GET',
  url: '/api/enterprise/stolen-policy',
  operationId: 'getStolenPolicy',
  tags: TAGS,
  summary: 'Who may clear the enterprise’s lost and stolen reports',
  access: POLICY,
  responses: { 200: { description: 'The policy (default `brand`)', schema: Policy } },
  handler: async (request, { clients }) => {
    const res = await clients.stolen.getStolenPolicy({ principal: principalOf(request) });
    return { success: true as const, stolenClearedBy: res.cleared_by as 'brand' | 'brand_or_reporter' };
  },
});

export const setStolenPolicy = defineEndpoint({
  method: 'PUT',
  url: '/api/enterprise/stolen-policy',
  operationId: 'setStolenPolicy',
  tags: TAGS,
  summary: 'Set who may clear the enterprise’s lost and stolen reports',
  access: POLICY,
  body: closed({
    stolenClearedBy: Type.Unsafe<'brand' | 'brand_or_reporter'>({
      type: 'string',
      enum: ['brand', 'brand_or_reporter'],
      description: '`brand`: only the brand; `brand_or_reporter`: also the owner who reported it',
    }),
  }),
  responses: { 200: { description: 'The policy as stored', schema: Policy } },
  handler: async (request, { clients }) => {
    const res = await clients.stolen.setStolenPolicy({
      principal: principalOf(request),
      cleared_by: request.body.stolenClearedBy,
    });
    return { success: true as const, stolenClearedBy: res.cleared_by as 'brand' | 'brand_or_reporter' };
  },
});
