// Proof-of-ownership links (docs/resale.md): the owner makes a time-limited, revocable link;
// anyone holding it reads whether the owner still holds the certificate, as of that moment.
// The public read counts unknown tokens toward the claim links' invalid-attempt limit.
import { HallmarkError } from '@hallmark/kit';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, int, nullable, oneOf, str, time, Type } from '../../endpoint/schema.js';
import { isInvalidToken, limitsOf } from '../gifts/limits.js';
import { principalOf } from '../shared.js';
import { OWNER, PUBLIC, TAGS } from './common.js';

const address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', maxLength: 42 });
const linkSchema = Type.Object(
  {
    linkId: str(64, 'ownlink_…'),
    certificateId: str(64, 'cert_…'),
    holderAddress: address,
    expiresAt: time,
    revokedAt: nullable(time),
    createdAt: time,
  },
  { additionalProperties: false },
);
const presentLink = (l: {
  id: string;
  certificate_id: string;
  holder_address: string;
  expires_at: string;
  revoked_at?: string;
  created_at: string;
}) => ({
  linkId: l.id,
  certificateId: l.certificate_id,
  holderAddress: l.holder_address,
  expiresAt: l.expires_at,
  revokedAt: l.revoked_at ?? null,
  createdAt: l.created_at,
});

export const createOwnershipLink = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/ownership-links',
  operationId: 'createOwnershipLink',
  tags: TAGS,
  summary: 'Make a link that proves the owner holds a certificate (the owner’s session)',
  description:
    'For a certificate in the signed-in owner’s custodial wallet. Valid `ttlHours` (1–720, default 72), ' +
    'revocable. The token is shown only here and stored only as its hash. Anyone with the link reads ' +
    '`GET /api/ownership/:token`: `owned` while the owner still holds the certificate, `transferred` once it ' +
    'left them, `expired` or `revoked` otherwise.',
  access: OWNER,
  body: closed({
    certificateId: Type.String({ minLength: 1, maxLength: 64, description: 'cert_…' }),
    ttlHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'Default 72 (3 days)' })),
  }),
  responses: {
    201: {
      description: 'The link; its token is shown only here',
      schema: Type.Object(
        {
          success: Type.Literal(true),
          token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', maxLength: 43 }),
          url: Type.String({ format: 'uri', maxLength: 2048 }),
          link: linkSchema,
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients, config, reply }) => {
    const res = await clients.ownership.createOwnershipLink({
      principal: principalOf(request),
      certificate_id: request.body.certificateId,
      ttl_hours: request.body.ttlHours ?? 0,
    });
    reply.header('cache-control', 'no-store');
    const base = config.HALLMARK_PUBLIC_URL.replace(/\/+$/, '');
    return {
      success: true as const,
      token: res.token,
      url: `${base}/api/ownership/${res.token}`,
      link: presentLink(res.link!),
    };
  },
});

export const revokeOwnershipLink = defineEndpoint({
  method: 'POST',
  url: '/api/certificates/ownership-links/:linkId/revoke',
  operationId: 'revokeOwnershipLink',
  tags: TAGS,
  summary: 'Revoke an ownership link (its owner; idempotent)',
  access: OWNER,
  params: closed({ linkId: Type.String({ minLength: 1, maxLength: 64, description: 'ownlink_…' }) }),
  responses: {
    200: {
      description: 'The link, revoked',
      schema: Type.Object({ success: Type.Literal(true), link: linkSchema }, { additionalProperties: false }),
    },
  },
  handler: async (request, { clients }) => {
    const l = await clients.ownership.revokeOwnershipLink({
      principal: principalOf(request),
      link_id: request.params.linkId,
    });
    return { success: true as const, link: presentLink(l) };
  },
});

export const getOwnershipProof = defineEndpoint({
  method: 'GET',
  url: '/api/ownership/:token',
  operationId: 'getOwnershipProof',
  tags: TAGS,
  summary: 'What an ownership link proves now (public)',
  description:
    '`owned`: the holder the link was made for still holds the certificate, as of `asOf`; `transferred`: it ' +
    'has left them since; `expired` / `revoked`: the link proves nothing (no certificate named). Unknown ' +
    'token: 404, counted toward the invalid-link limit (then 429). Never cached.',
  access: PUBLIC,
  params: closed({ token: Type.String({ minLength: 1, maxLength: 128 }) }),
  responses: {
    200: {
      description: 'The proof as of now',
      schema: Type.Object(
        {
          success: Type.Literal(true),
          status: oneOf(['owned', 'transferred', 'expired', 'revoked']),
          asOf: time,
          expiresAt: time,
          createdAt: time,
          certificateId: nullable(str(64)),
          certificateName: nullable(str(500)),
          imageUrl: nullable(str(2048)),
          tokenId: nullable(int()),
          holderAddress: nullable(address),
        },
        { additionalProperties: false },
      ),
    },
  },
  handler: async (request, { clients, config, reply }) => {
    const limits = limitsOf(request, config);
    await limits.checkAttempts(request, reply);
    try {
      const p = await clients.ownership.getOwnershipProof(
        { token: request.params.token },
        { idempotent: true },
      );
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        status: p.status,
        asOf: p.as_of,
        expiresAt: p.expires_at,
        createdAt: p.created_at,
        certificateId: p.certificate_id ?? null,
        certificateName: p.certificate_name ?? null,
        imageUrl: p.image_url ?? null,
        tokenId: p.token_id ?? null,
        holderAddress: p.holder_address ?? null,
      };
    } catch (err) {
      if (isInvalidToken(err) && err instanceof HallmarkError) await limits.countInvalid(request);
      throw err;
    }
  },
});
