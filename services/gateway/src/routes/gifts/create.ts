// POST /api/certificates/gift/create: the sender (user session or API key of the owning
// enterprise) gifts a certificate held by their custodial wallet; 201 with the transfer id
// and the claim token (shown once). The recipient is notified by the gift's workflow.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';
import { ERRORS, giftSchema, presentGift, SENDER, TAGS } from './common.js';
import type { GiftLimiters } from './limits.js';

interface Body {
  certificateId: string;
  recipientEmail: string;
  recipientPhone?: string;
  message?: string;
}

export default async function createGiftRoute(
  app: FastifyInstance,
  { clients, config, limits }: RouteDeps & { limits: GiftLimiters },
) {
  const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
  app.post<{ Body: Body }>(
    '/api/certificates/gift/create',
    {
      config: SENDER,
      schema: {
        operationId: 'createGift',
        tags: TAGS,
        summary: 'Gift a certificate by a single-use claim link',
        description:
          'The certificate must be minted and held by the sender’s custodial wallet (the enterprise’s holding ' +
          'wallet, or for a user session also the user’s own wallet), and not in another pending hand-over (an ' +
          'unclaimed certificate voucher, a gift or a transfer: 409 `resource_locked` naming it). The ' +
          'recipient gets an e-mail (primary SMTP, fallback on failure) and, with `recipientPhone`, an SMS, with ' +
          'the claim link `/claim/<claimToken>`; an email template of the enterprise named `gift` replaces the ' +
          'built-in message. The gift expires after HALLMARK_GIFT_TTL_HOURS (default 168). A held certificate ' +
          'Hallmark has no signing key for: 502 `sender_credential_missing`. At most ' +
          'HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT (default 100) gifts per enterprise an hour (429 with `retry_after`).',
        body: {
          type: 'object',
          required: ['certificateId', 'recipientEmail'],
          additionalProperties: false,
          properties: {
            certificateId: { type: 'string', minLength: 1, maxLength: 64, description: 'cert_…' },
            recipientEmail: {
              type: 'string',
              minLength: 3,
              maxLength: 254,
              description: 'Where the link goes',
            },
            recipientPhone: {
              type: 'string',
              minLength: 1,
              maxLength: 32,
              description: 'E.164 (+15551234567); enables SMS',
            },
            message: {
              type: 'string',
              maxLength: 500,
              description: 'Shown to the recipient (≤ 500 characters)',
            },
          },
        },
        response: {
          201: {
            description: 'The gift, pending; the claim token is shown only here',
            type: 'object',
            required: ['success', 'transferId', 'status', 'claimToken', 'claimUrl', 'gift'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              transferId: { type: 'string', maxLength: 64, description: 'gift_…' },
              status: { type: 'string', const: 'pending' },
              claimToken: {
                type: 'string',
                pattern: '^[A-Za-z0-9_-]{43}$',
                maxLength: 43,
                description: '43 base64url characters; single-use',
              },
              claimUrl: { type: 'string', format: 'uri', maxLength: 2048 },
              gift: giftSchema,
            },
          },
          400: ERRORS[400],
          401: ERRORS[401],
          403: ERRORS[403],
          404: ERRORS[404],
          409: ERRORS[409],
          422: ERRORS[422],
          429: ERRORS[429],
          502: ERRORS[502],
          503: ERRORS[503],
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const principal = principalOf(request);
      await limits.create(principal.enterprise_id, reply);
      const res = await clients.gifts
        .createGift({
          principal,
          certificate_id: b.certificateId,
          recipient_email: b.recipientEmail,
          recipient_phone: b.recipientPhone,
          message: b.message,
          sender_email: request.auth?.kind === 'session' ? (request.auth.email ?? undefined) : undefined,
        })
        .catch(async (err: unknown) => {
          // Refused (4xx): nothing was created or sent. A 5xx may have created it: counted.
          if (err instanceof HallmarkError && err.httpStatus < 500)
            await limits.uncountCreate(principal.enterprise_id);
          throw err;
        });
      const gift = res.gift!;
      reply.status(201).header('cache-control', 'no-store');
      return {
        success: true,
        transferId: gift.id,
        status: 'pending',
        claimToken: res.claim_token,
        claimUrl: `${base}/claim/${res.claim_token}`,
        gift: presentGift(gift),
      };
    },
  );
}
