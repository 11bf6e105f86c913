// The creator's operations on a gift: read, resend (rate limited per gift), revoke. Another
// enterprise's gift is 404; another actor of the same enterprise gets 403.
import { defineEndpoint } from '../../endpoint/define.js';
import { Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { giftSchema, giftStatus, presentGift, SENDER, TAGS, transferIdParams } from './common.js';
import { limitsOf } from './limits.js';

const GiftReply = Type.Object(
  { success: Type.Literal(true), status: Type.Optional(giftStatus), gift: giftSchema },
  { additionalProperties: false },
);

export const getGift = defineEndpoint({
  method: 'GET',
  url: '/api/certificates/gift/:transferId',
  operationId: 'getGift',
  tags: TAGS,
  summary: 'A gift of the caller’s enterprise',
  description: 'Status, expiry and, once claimed, the transaction hash. Expired gifts are removed: 404.',
  access: SENDER,
  params: transferIdParams,
  responses: { 200: { description: 'The gift', schema: GiftReply } },
  handler: async (request, { clients }) => {
    const gift = await clients.gifts.getGift(
      { principal: principalOf(request), transfer_id: request.params.transferId },
      { idempotent: true },
    );
    return { success: true as const, status: gift.status, gift: presentGift(gift) };
  },
});

export const resendGift = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/gift/resend/:transferId',
  operationId: 'resendGift',
  tags: TAGS,
  summary: 'Send a pending gift’s claim link again',
  description:
    'The gift’s creator only (another actor of the enterprise: 403). The same channels as at creation: ' +
    '`method` is `email`, or `email,sms` when a phone was given. At most HALLMARK_GIFT_RESEND_LIMIT (default 5) ' +
    'per gift an hour, and HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT (default 20) per enterprise an hour (429 with ' +
    '`retry_after`). A gift that is no longer pending: 422.',
  access: SENDER,
  params: transferIdParams,
  responses: {
    200: {
      description: 'Sent',
      schema: Type.Object(
        {
          success: Type.Literal(true),
          status: Type.Literal('pending'),
          method: Type.Unsafe<string>({ type: 'string', enum: ['email', 'email,sms'] }),
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients, config, reply }) => {
    // Per gift and caller, so nobody else can spend the creator's budget; and per enterprise,
    // which bounds the messages sent whichever gifts they are for.
    const principal = principalOf(request);
    const limits = limitsOf(request, config);
    await limits.resend(`${request.params.transferId}:${principal.actor_id}`, reply);
    await limits.resendByEnterprise(principal.enterprise_id, reply);
    const res = await clients.gifts.resendGift(
      { principal, transfer_id: request.params.transferId },
      { deadlineMs: 45_000 },
    );
    return { success: true as const, status: res.status as 'pending', method: res.method };
  },
});

export const revokeGift = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/gift/revoke/:transferId',
  operationId: 'revokeGift',
  tags: TAGS,
  summary: 'Revoke a pending gift',
  description:
    'The gift’s creator only, before it is claimed. The claim link stops working and the certificate stays ' +
    'with the sender. Revoking a revoked gift answers it again; a claimed gift: 422.',
  access: SENDER,
  params: transferIdParams,
  responses: { 200: { description: 'Revoked', schema: GiftReply } },
  handler: async (request, { clients }) => {
    const gift = await clients.gifts.revokeGift({
      principal: principalOf(request),
      transfer_id: request.params.transferId,
    });
    return { success: true as const, status: gift.status, gift: presentGift(gift) };
  },
});
