// The creator's operations on a gift: read, resend (rate limited per gift), revoke. Another
// enterprise's gift is 404; another actor of the same enterprise gets 403.
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../../clients.js';
import { principalOf } from '../shared.js';
import { ERRORS, giftSchema, presentGift, SENDER, TAGS, transferIdParams } from './common.js';
import type { GiftLimiters } from './limits.js';

type Params = { Params: { transferId: string } };

const giftReply = (description: string) => ({
  description,
  type: 'object',
  required: ['success', 'gift'],
  additionalProperties: false,
  properties: {
    success: { type: 'boolean', const: true },
    status: giftSchema.properties.status,
    gift: giftSchema,
  },
});

export default async function manageGiftRoutes(
  app: FastifyInstance,
  { clients, limits }: { clients: Pick<Clients, 'gifts'>; limits: GiftLimiters },
) {
  app.get<Params>(
    '/api/certificates/gift/:transferId',
    {
      config: SENDER,
      schema: {
        operationId: 'getGift',
        tags: TAGS,
        summary: 'A gift of the caller’s enterprise',
        description:
          'Status, expiry and, once claimed, the transaction hash. Expired gifts are removed: 404.',
        params: transferIdParams,
        response: {
          200: giftReply('The gift'),
          400: ERRORS[400],
          401: ERRORS[401],
          403: ERRORS[403],
          404: ERRORS[404],
          429: ERRORS[429],
        },
      },
    },
    async (request) => {
      const gift = await clients.gifts.getGift(
        { principal: principalOf(request), transfer_id: request.params.transferId },
        { idempotent: true },
      );
      return { success: true, status: gift.status, gift: presentGift(gift) };
    },
  );

  app.post<Params>(
    '/api/certificates/gift/resend/:transferId',
    {
      config: SENDER,
      schema: {
        operationId: 'resendGift',
        tags: TAGS,
        summary: 'Send a pending gift’s claim link again',
        description:
          'The gift’s creator only (another actor of the enterprise: 403). The same channels as at creation: ' +
          '`method` is `email`, or `email,sms` when a phone was given. At most HALLMARK_GIFT_RESEND_LIMIT (default 5) ' +
          'per gift an hour, and HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT (default 20) per enterprise an hour (429 with ' +
          '`retry_after`). A gift that is no longer pending: 422.',
        params: transferIdParams,
        response: {
          200: {
            description: 'Sent',
            type: 'object',
            required: ['success', 'status', 'method'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              status: { type: 'string', const: 'pending' },
              method: { type: 'string', enum: ['email', 'email,sms'] },
            },
          },
          400: ERRORS[400],
          401: ERRORS[401],
          403: ERRORS[403],
          404: ERRORS[404],
          422: ERRORS[422],
          429: ERRORS[429],
          502: ERRORS[502],
        },
      },
    },
    async (request, reply) => {
      // Per gift and caller, so nobody else can spend the creator's budget; and per enterprise,
      // which bounds the messages sent whichever gifts they are for.
      const principal = principalOf(request);
      await limits.resend(`${request.params.transferId}:${principal.actor_id}`, reply);
      await limits.resendByEnterprise(principal.enterprise_id, reply);
      const res = await clients.gifts.resendGift(
        { principal: principalOf(request), transfer_id: request.params.transferId },
        { deadlineMs: 45_000 },
      );
      return { success: true, status: res.status, method: res.method };
    },
  );

  app.post<Params>(
    '/api/certificates/gift/revoke/:transferId',
    {
      config: SENDER,
      schema: {
        operationId: 'revokeGift',
        tags: TAGS,
        summary: 'Revoke a pending gift',
        description:
          'The gift’s creator only, before it is claimed. The claim link stops working and the certificate stays ' +
          'with the sender. Revoking a revoked gift answers it again; a claimed gift: 422.',
        params: transferIdParams,
        response: {
          200: giftReply('Revoked'),
          400: ERRORS[400],
          401: ERRORS[401],
          403: ERRORS[403],
          404: ERRORS[404],
          422: ERRORS[422],
          429: ERRORS[429],
        },
      },
    },
    async (request) => {
      const gift = await clients.gifts.revokeGift({
        principal: principalOf(request),
        transfer_id: request.params.transferId,
      });
      return { success: true, status: gift.status, gift: presentGift(gift) };
    },
  );
}
