// The claim link: the public page `GET /claim/:token` and the recipient's
// `POST /api/certificates/gift/claim/:token` (user session; 401 without). Invalid tokens
// (unknown, used, revoked, expired) on either count toward the client's invalid-attempt
// limit (limits.ts); past it both answer 429 before the token is looked up.
import { HallmarkError } from '@hallmark/kit';
import type { GiftView } from '@hallmark/proto/certificates/v1/gifts';
import type { Config } from '../../config.js';
import { defineEndpoint } from '../../endpoint/define.js';
import { bool, Type } from '../../endpoint/schema.js';
import { issuerFrom } from '../../pages/issuer.js';
import {
  claimKind,
  renderClaimInvalidPage,
  renderClaimPage,
  renderClaimUnavailablePage,
} from '../../pages/claim.js';
import { sendPage } from '../../pages/shell.js';
import { principalOf } from '../shared.js';
import { verifyUrl } from '../verify/pages.js';
import {
  giftSchema,
  presentGift,
  PUBLIC,
  RECIPIENT,
  TAGS,
  tokenParams,
  txHash,
  userOperationHash,
} from './common.js';
import { isInvalidToken, limitsOf } from './limits.js';

/** How long a claim waits for its chain transfer before answering 202 (claiming). */
const CLAIM_WAIT_MS = 25_000;

const claimUrls = (config: Config, token: string) => {
  const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
  let claimApp: string | null = null;
  if (config.HALLMARK_CLAIM_APP_URL) {
    const u = new URL(config.HALLMARK_CLAIM_APP_URL);
    u.searchParams.set('token', token);
    claimApp = u.toString();
  }
  return { base, claimApi: `${base}/api/certificates/gift/claim/${encodeURIComponent(token)}`, claimApp };
};

export const getGiftClaimPage = defineEndpoint({
  method: 'GET',
  url: '/claim/:token',
  operationId: 'getGiftClaimPage',
  tags: TAGS,
  summary: 'The claim page of a gift (HTML; no authentication)',
  description:
    'Shows the certificate offered (image, name, issuer), the sender’s message, the expiry and how to claim ' +
    '(a link to HALLMARK_CLAIM_APP_URL with the token when configured). Unknown, used, revoked and expired ' +
    'links get a page saying so (404 unknown, 410 otherwise) and count toward the invalid-attempt limit.',
  access: PUBLIC,
  params: tokenParams,
  responses: {
    200: { description: 'The claim page', contentType: 'text/html' },
    // 404, 429 and 503 are pages too; the document keeps its shared error responses for them
    // (with Retry-After on the 429).
    410: { description: 'Used, revoked or expired link (page)', contentType: 'text/html' },
  },
  handler: async (request, { clients, config, reply }) => {
    const { token } = request.params;
    const limits = limitsOf(request, config);
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
      return sendPage(reply, 410, renderClaimInvalidPage(view.status, claimKind(view.kind)));
    }
    const urls = claimUrls(config, token);
    return sendPage(
      reply,
      200,
      renderClaimPage(
        view,
        {
          claimApi: urls.claimApi,
          claimApp: urls.claimApp,
          verify: verifyUrl(urls.base, view.certificate_id),
        },
        issuerFrom(view.issuer_profile),
      ),
    );
  },
});

const claimAnswer = (description: string, pending: boolean) => ({
  description,
  schema: Type.Object(
    {
      success: Type.Literal(true),
      transactionHash: pending ? Type.Null() : txHash,
      userOperationHash: pending ? Type.Null() : userOperationHash,
      status: pending
        ? Type.Unsafe<string>({ type: 'string', const: 'claiming' })
        : Type.Unsafe<string>({ type: 'string', enum: ['claimed', 'claiming'] }),
      replayed: Type.Optional(bool),
      gift: giftSchema,
    },
    { additionalProperties: false },
  ),
});

export const claimGift = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/gift/claim/:token',
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
  access: RECIPIENT,
  params: tokenParams,
  responses: {
    200: claimAnswer('Claimed: the certificate is in the recipient’s wallet', false),
    202: claimAnswer('Taken by this recipient; the chain transfer is still on its way', true),
  },
  handler: async (request, { clients, config, reply }) => {
    const principal = principalOf(request);
    const limits = limitsOf(request, config);
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
        success: true as const,
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
});
