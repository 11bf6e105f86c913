// The brand's resale policy (docs/resale.md): whether its certificates' resales need its
// approval. Per enterprise and mode; set by an API key with admin.*.
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, closed, nullable, time, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { BRAND_POLICY, TAGS } from './common.js';

const PolicyReply = Type.Object(
  {
    success: Type.Literal(true),
    approvalRequired: bool,
    updatedAt: nullable(time),
  },
  { additionalProperties: false },
);

export const getResalePolicy = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/resale-policy',
  operationId: 'getResalePolicy',
  tags: TAGS,
  summary: 'The enterprise’s resale policy',
  access: BRAND_POLICY,
  responses: { 200: { description: 'The policy (never set: approval not required)', schema: PolicyReply } },
  handler: async (request, { clients }) => {
    const p = await clients.resale.getResalePolicy({ principal: principalOf(request) }, { idempotent: true });
    return { success: true as const, approvalRequired: p.approval_required, updatedAt: p.updated_at ?? null };
  },
});

export const setResalePolicy = defineEndpoint({
  method: 'PUT',
  url: '/api/certificates/resale-policy',
  operationId: 'setResalePolicy',
  tags: TAGS,
  summary: 'Require (or stop requiring) the brand’s approval of resales',
  description:
    'With `approvalRequired`, every resale started from now on waits for the brand: webhook ' +
    '`certificate.resale_approval_requested`, then approve or refuse by API. Resales already started keep ' +
    'the policy they started under.',
  access: BRAND_POLICY,
  body: closed({ approvalRequired: bool }),
  responses: { 200: { description: 'The policy as stored', schema: PolicyReply } },
  handler: async (request, { clients }) => {
    const p = await clients.resale.setResalePolicy({
      principal: principalOf(request),
      approval_required: request.body.approvalRequired,
    });
    return { success: true as const, approvalRequired: p.approval_required, updatedAt: p.updated_at ?? null };
  },
});
