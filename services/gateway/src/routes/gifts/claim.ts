// The claim link: the public page `GET /claim/:token` and the recipient's
// `POST /api/certificates/gift/claim/:token` (user session; 401 without). Invalid tokens
// (unknown, used, revoked, expired) on either count toward the client's invalid-attempt
// limit (limits.ts); past it both answer 429 before the token is looked up.
import { HallmarkError } from '@hallmark/kit';
import type { GiftView } from '@hallmark/proto/certificates/v1/gifts';
import type { FastifyInstance } from 'fastify';
import { issuerFrom } from '../../pages/issuer.js';
import { renderClaimInvalidPage, renderClaimPage, renderClaimUnavailablePage } from '../../pages/claim.js';
import { sendPage } from '../../pages/shell.js';
import { principalOf, type RouteDeps } from '../shared.js';
import { verifyUrl } from '../verify/pages.js';
import {
  ERRORS,
  giftSchema,
  htmlPage,
  presentGift,
  PUBLIC,
  RECIPIENT,
  TAGS,
  tokenParams,
  txHash,
} from './common.js';
import { isInvalidToken, type GiftLimiters } from './limits.js';

type Params = { Params: { token: string } };

/** How long a claim waits for its chain transfer before answering 202 (claiming). */
const CLAIM_WAIT_MS = 25_000;

export default async function claimRoutes(
  app: FastifyInstance,
  { clients, config, limits }: RouteDeps & { limits: GiftLimiters },
) {
  const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
  const claimApi = (token: string) => `${base}/api/certificates/gift/claim/${encodeURIComponent(token)}`;
  const claimApp = (token: string) => {
    if (!config.HALLMARK_CLAIM_APP_URL) return null;
    const u = new URL(config.HALLMARK_CLAIM_APP_URL);
    u.searchParams.set('token', token);
    return u.toString();
  };

  app.get<Params>(
    '/claim/:token',
    {
      config: PUBLIC,
      schema: {
        operationId: 'getGiftClaimPage',
        tags: TAGS,
        summary: 'The claim page of a gift (HTML; no authentication)',
        description:
          'Shows the certificate offered (image, name, issuer), the sender’s message, the expiry and how to claim ' +
          '(a link to HALLMARK_CLAIM_APP_URL with the token when configured). Unknown, used, revoked and expired ' +
          'links get a page saying so (404 unknown, 410 otherwise) and count toward the invalid-attempt limit.',
        params: tokenParams,
        produces: ['text/html'],
        response: {
          200: htmlPage('The claim page'),
          404: htmlPage('Unknown link (page)'),
          410: htmlPage('Used, revoked or expired link (page)'),
          429: htmlPage('Too many invalid links from this client (page, with Retry-After)'),
          503: htmlPage('Outage (page)'),
        },
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      try {
        await limits.checkAttempts(request, reply);
      } catch (err) {
        if (!(err instanceof HallmarkError) || err.code !== 'rate_limit_exceeded') throw err;
        return sendPage(reply, 429, renderClaimInvalidPage('rate_limited'));
      }
      let view: GiftView;
      try {
        view = await clients.gifts.getGiftByToken({ token }, { idempotent: true });
      } catch (err) {
        if (isInvalidToken(err)) {
          await limits.countInvalid(request);
          return sendPage(reply, 404, renderClaimInvalidPage(null));
        }
        request.log.warn({ err }, 'claim page: read failed');
        return sendPage(reply, 503, renderClaimUnavailablePage());
      }
      if (view.status !== 'pending') {
        await limits.countInvalid(request);
        return sendPage(reply, 410, renderClaimInvalidPage(view.status));
      }
      return sendPage(
        reply,
        200,
        renderClaimPage(
          view,
          {
            claimApi: claimApi(token),
            claimApp: claimApp(token),
            verify: verifyUrl(base, view.certificate_id),
          },
          issuerFrom(view.issuer_profile),
        ),
      );
    },
  );

  app.post<Params>(
    '/api/certificates/gift/claim/:token',
    {
      config: RECIPIENT,
      schema: {
        operationId: 'claimGift',
        tags: TAGS,
        summary: 'Claim a gift with the recipient’s user session',
        description:
          'The recipient’s custodial wallet is provisioned and the token moves there on chain by the holder-signed ' +
          'permit path. 200 `claimed` once the transfer is confirmed; 202 `claiming` if it is still on its way ' +
          '(claim again, or read the gift, for the result). Single-use: of parallel claims exactly one wins; the ' +
          'same recipient claiming again gets the same answer (`replayed`). Unknown, used, revoked or expired ' +
          'token: 404, counted toward the invalid-attempt limit (then 429). A gift whose certificate is in another ' +
          'pending hand-over or no longer with the sender: 409 `resource_locked` (the gift stays pending; its ' +
          'claim page says it cannot be claimed). At most HALLMARK_GIFT_CLAIM_LIMIT ' +
          '(default 10) claims per user an hour.',
        params: tokenParams,
        response: {
          200: {
            description: 'Claimed: the certificate is in the recipient’s wallet',
            type: 'object',
            required: ['success', 'transactionHash', 'userOperationHash', 'status', 'gift'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              transactionHash: txHash,
              userOperationHash: { type: 'null', description: 'Always null (no account abstraction)' },
              status: { type: 'string', enum: ['claimed', 'claiming'] },
              replayed: { type: 'boolean' },
              gift: giftSchema,
            },
          },
          202: {
            description: 'Taken by this recipient; the chain transfer is still on its way',
            type: 'object',
            required: ['success', 'transactionHash', 'userOperationHash', 'status', 'gift'],
            additionalProperties: false,
            properties: {
              success: { type: 'boolean', const: true },
              transactionHash: { type: 'null' },
              userOperationHash: { type: 'null' },
              status: { type: 'string', const: 'claiming' },
              replayed: { type: 'boolean' },
              gift: giftSchema,
            },
          },
          400: ERRORS[400],
          401: ERRORS[401],
          403: ERRORS[403],
          404: ERRORS[404],
          409: ERRORS[409],
          429: ERRORS[429],
          503: ERRORS[503],
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await limits.checkAttempts(request, reply);
      await limits.claim(principal.actor_id, reply);
      try {
        const res = await clients.gifts.claimGift(
          { principal, token: request.params.token, wait_ms: CLAIM_WAIT_MS },
          { deadlineMs: CLAIM_WAIT_MS + 10_000 },
        );
        const gift = res.gift!;
        reply.status(gift.status === 'claimed' ? 200 : 202).header('cache-control', 'no-store');
        return {
          success: true,
          transactionHash: gift.transaction_hash ?? null,
          userOperationHash: null,
          status: gift.status,
          replayed: res.replayed,
          gift: presentGift(gift),
        };
      } catch (err) {
        if (isInvalidToken(err)) await limits.countInvalid(request);
        throw err;
      }
    },
  );
}
