// POST /api/certificates/gift/create: the sender (user session or API key of the owning
// enterprise) gifts a certificate held by their custodial wallet; 201 with the transfer id
// and the claim token (shown once). The recipient is notified by the gift's workflow.
import { HallmarkError } from '@hallmark/kit';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, Type } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { giftSchema, presentGift, SENDER, TAGS } from './common.js';
import { limitsOf } from './limits.js';

export const createGift = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/gift/create',
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
  access: SENDER,
  body: closed({
    certificateId: Type.String({ minLength: 1, maxLength: 64, description: 'cert_…' }),
    recipientEmail: Type.String({ minLength: 3, maxLength: 254, description: 'Where the link goes' }),
    recipientPhone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'E.164 (+15551234567); enables SMS' }),
    ),
    message: Type.Optional(
      Type.String({ maxLength: 500, description: 'Shown to the recipient (≤ 500 characters)' }),
    ),
  }),
  responses: {
    201: {
      description: 'The gift, pending; the claim token is shown only here',
      schema: Type.Object(
        {
          success: Type.Literal(true),
          transferId: Type.String({ maxLength: 64, description: 'gift_…' }),
          status: Type.Literal('pending'),
          claimToken: Type.String({
            pattern: '^[A-Za-z0-9_-]{43}$',
            maxLength: 43,
            description: '43 base64url characters; single-use',
          }),
          claimUrl: Type.String({ format: 'uri', maxLength: 2048 }),
          gift: giftSchema,
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients, config, reply }) => {
    const b = request.body;
    const principal = principalOf(request);
    const limits = limitsOf(request, config);
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
    reply.header('cache-control', 'no-store');
    const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
    return {
      success: true as const,
      transferId: gift.id,
      status: 'pending' as const,
      claimToken: res.claim_token,
      claimUrl: `${base}/claim/${res.claim_token}`,
      gift: presentGift(gift),
    };
  },
});
