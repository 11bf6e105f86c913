// The resale of a certificate by its owner to a buyer's e-mail (docs/resale.md): start, read,
// cancel (the owner), approve and refuse (the brand's API key). The buyer claims with the
// gift claim link the e-mail carries (POST /api/certificates/gift/claim/:token).
import { HallmarkError } from '@hallmark/kit';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, Type } from '../../endpoint/schema.js';
import { limitsOf } from '../gifts/limits.js';
import { principalOf } from '../shared.js';
import { BRAND_DECIDE, OWNER, presentResale, READ, ResaleReply, resaleIdParams, TAGS } from './common.js';

export const createResale = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/resale/create',
  operationId: 'createResale',
  tags: TAGS,
  summary: 'Resell a certificate to a buyer’s e-mail (the owner’s session)',
  description:
    'The owner, signed in with a user session that proves their e-mail, hands a certificate held by their ' +
    'own custodial wallet to a buyer, who needs no wallet: the buyer gets an e-mail with a single-use claim ' +
    'link (never shown here) and claims it like a gift; the token moves to the buyer’s custodial wallet and ' +
    'provenance records `resold`. When the brand’s policy requires approval the resale is ' +
    '`awaiting_approval` and the buyer is e-mailed only once the brand approves. A certificate in another ' +
    'pending hand-over (gift, resale, voucher, transfer): 409 `resource_locked`. A session proving no ' +
    'e-mail: 403. Counted with gifts against HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT.',
  access: OWNER,
  body: closed({
    certificateId: Type.String({ minLength: 1, maxLength: 64, description: 'cert_…' }),
    buyerEmail: Type.String({ minLength: 3, maxLength: 254, description: 'Where the claim link goes' }),
    message: Type.Optional(
      Type.String({ maxLength: 500, description: 'Shown to the buyer (≤ 500 characters)' }),
    ),
  }),
  responses: { 201: { description: 'The resale, pending or awaiting approval', schema: ResaleReply } },
  handler: async (request, { clients, config, reply }) => {
    const principal = principalOf(request);
    const limits = limitsOf(request, config);
    await limits.create(principal.enterprise_id, reply);
    const r = await clients.resale
      .createResale({
        principal,
        certificate_id: request.body.certificateId,
        buyer_email: request.body.buyerEmail,
        message: request.body.message,
        seller_email: request.auth?.email ?? '',
      })
      .catch(async (err: unknown) => {
        if (err instanceof HallmarkError && err.httpStatus < 500)
          await limits.uncountCreate(principal.enterprise_id);
        throw err;
      });
    reply.header('cache-control', 'no-store');
    return { success: true as const, resale: presentResale(r) };
  },
});

export const getResale = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/resale/:resaleId',
  operationId: 'getResale',
  tags: TAGS,
  summary: 'A resale of the caller’s enterprise',
  access: READ,
  params: resaleIdParams,
  responses: { 200: { description: 'The resale', schema: ResaleReply } },
  handler: async (request, { clients }) => {
    const r = await clients.resale.getResale(
      { principal: principalOf(request), resale_id: request.params.resaleId },
      { idempotent: true },
    );
    return { success: true as const, resale: presentResale(r) };
  },
});

export const cancelResale = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/resale/:resaleId/cancel',
  operationId: 'cancelResale',
  tags: TAGS,
  summary: 'Cancel a pending resale (its owner)',
  description: 'The claim link stops working; the certificate stays with the owner. Claimed already: 422.',
  access: OWNER,
  params: resaleIdParams,
  responses: { 200: { description: 'The resale, revoked', schema: ResaleReply } },
  handler: async (request, { clients }) => {
    const r = await clients.resale.cancelResale({
      principal: principalOf(request),
      resale_id: request.params.resaleId,
    });
    return { success: true as const, resale: presentResale(r) };
  },
});

const DECISION_NOTE =
  'The brand’s API key only (a user session: 401). Only a resale `awaiting_approval` can be decided (else 422).';

export const approveResale = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/resale/:resaleId/approve',
  operationId: 'approveResale',
  tags: TAGS,
  summary: 'Approve a resale awaiting the brand (the buyer is e-mailed the claim link)',
  description: `${DECISION_NOTE} Webhook \`certificate.resale_approved\`.`,
  access: BRAND_DECIDE,
  params: resaleIdParams,
  body: closed({
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Recorded with the decision' })),
  }),
  responses: { 200: { description: 'The resale, approved', schema: ResaleReply } },
  handler: async (request, { clients }) => {
    const r = await clients.resale.decideResale({
      principal: principalOf(request),
      resale_id: request.params.resaleId,
      approve: true,
      reason: request.body.reason,
    });
    return { success: true as const, resale: presentResale(r) };
  },
});

export const refuseResale = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/resale/:resaleId/refuse',
  operationId: 'refuseResale',
  tags: TAGS,
  summary: 'Refuse a resale awaiting the brand (the owner keeps the certificate)',
  description: `${DECISION_NOTE} The resale ends \`revoked\`. Webhook \`certificate.resale_refused\`.`,
  access: BRAND_DECIDE,
  params: resaleIdParams,
  body: closed({
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (recorded, shown to the owner)' }),
  }),
  responses: { 200: { description: 'The resale, refused', schema: ResaleReply } },
  handler: async (request, { clients }) => {
    const r = await clients.resale.decideResale({
      principal: principalOf(request),
      resale_id: request.params.resaleId,
      approve: false,
      reason: request.body.reason,
    });
    return { success: true as const, resale: presentResale(r) };
  },
});
