// /api/v1/enterprise/profile: the enterprise's issuer profile (display name, website, logo
// archived by the certificates media store like certificate images, search-engine opt-in)
// that the verify, voucher and claim pages and the public certificate read name the issuer
// by, and the state of its domain proof (`/.well-known/hallmark-issuer.json` on the
// website's host naming the enterprise id; checked by the keys service through the outbound
// guard on every save and on POST …/domain-check). Needs admin.*; the keys service further
// requires the user (or the user behind the key) to be an owner or admin: fails closed. Each
// route is one call to keys, which also has the media store archive the logo. Each endpoint
// is declared once (endpoint/define.ts).
import type { EnterpriseProfile as ProfileRecord } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance } from 'fastify';
import { defineEndpoint, registerEndpoints, type Access } from '../../endpoint/define.js';
import { bool, closed, int, nullable, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Enterprise'];
const ADMIN: Access = { auth: 'either', scope: 'admin.*' };

/** The issuer profile and its domain proof (shown inline in the document: no component). */
const EnterpriseProfile = Type.Object({
  enterpriseId: str(64),
  displayName: str(100),
  website: str(2048),
  logoUrl: nullable(str(2048)),
  // Hallmark's archived copy of the logo (what the pages show), and its size.
  logo: nullable(Type.Object({ url: str(2048), sha256: str(64), width: int(), height: int() })),
  indexable: bool,
  domain: Type.Object({
    host: str(300),
    status: oneOf(['verified', 'unverified']),
    checkedAt: time,
    detail: nullable(str(300)),
  }),
  updatedAt: time,
});

function presentEnterpriseProfile(p: ProfileRecord, publicUrl: string): Static<typeof EnterpriseProfile> {
  return {
    enterpriseId: p.enterprise_id,
    displayName: p.display_name,
    website: p.website,
    logoUrl: p.logo_url ?? null,
    logo: p.logo_sha256
      ? {
          url: new URL(`/media/${p.logo_sha256}`, publicUrl).toString(),
          sha256: p.logo_sha256,
          width: p.logo_width,
          height: p.logo_height,
        }
      : null,
    indexable: p.indexable,
    domain: {
      host: new URL(p.website).host,
      status: p.domain_status,
      checkedAt: p.domain_checked_at,
      detail: p.domain_detail || null,
    },
    updatedAt: p.updated_at,
  };
}

/** A save fetches the logo (the media store's own time cap) and the domain proof. */
const PUT_DEADLINE_MS = 60_000;

export const getEnterpriseProfile = defineEndpoint({
  method: 'GET',
  url: '/api/v1/enterprise/profile',
  operationId: 'getEnterpriseProfile',
  tags: TAGS,
  summary: "The enterprise's issuer profile and its domain proof state (owners and admins)",
  access: ADMIN,
  responses: {
    200: { description: 'The issuer profile and its domain proof state', schema: EnterpriseProfile },
  },
  handler: async (request, { clients, config }) =>
    presentEnterpriseProfile(
      await clients.keys.getEnterpriseProfile({ principal: principalOf(request) }, { idempotent: true }),
      config.HALLMARK_PUBLIC_URL,
    ),
});

export const setEnterpriseProfile = defineEndpoint({
  method: 'PUT',
  url: '/api/v1/enterprise/profile',
  operationId: 'setEnterpriseProfile',
  tags: TAGS,
  summary: "Set the enterprise's issuer profile; checks the domain proof (owners and admins)",
  description:
    'The public pages say "Issued by <displayName>". The domain is verified when ' +
    '`https://<website host>/.well-known/hallmark-issuer.json` is a JSON object whose `enterpriseId` is ' +
    "this enterprise's id; a failed proof is stored as unverified with the reason, never an error. The " +
    'logo is fetched once (https, the outbound rules, a size cap; PNG, JPEG, WebP or GIF) and served by ' +
    'Hallmark (`logo.url`), like certificate images; `logoUrl` stays its source. Verify pages are ' +
    '`noindex` for search engines unless `indexable` is true.',
  access: ADMIN,
  body: closed({
    displayName: Type.String({ maxLength: 100 }),
    website: Type.String({ maxLength: 2048, description: 'https URL of the brand site' }),
    logoUrl: Type.Optional(nullable(Type.String({ maxLength: 2048, description: 'https URL of the logo' }))),
    indexable: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Let search engines index the verify pages of its certificates',
      }),
    ),
  }),
  responses: {
    200: {
      description: 'The profile as saved, with the outcome of the domain proof just checked',
      schema: EnterpriseProfile,
    },
  },
  handler: async (request, { clients, config }) => {
    const b = request.body;
    const logoUrl = b.logoUrl?.trim() || null;
    // Keys checks the role before it has the media store fetch the logo (fail closed).
    const saved = await clients.keys.putEnterpriseProfile(
      {
        principal: principalOf(request),
        display_name: b.displayName,
        website: b.website,
        ...(logoUrl ? { logo_url: logoUrl } : {}),
        indexable: b.indexable === true,
      },
      { deadlineMs: PUT_DEADLINE_MS },
    );
    return presentEnterpriseProfile(saved, config.HALLMARK_PUBLIC_URL);
  },
});

export const checkEnterpriseDomain = defineEndpoint({
  method: 'POST',
  url: '/api/v1/enterprise/profile/domain-check',
  operationId: 'checkEnterpriseDomain',
  tags: TAGS,
  summary: 'Re-check the domain proof of the issuer profile now (owners and admins)',
  access: ADMIN,
  responses: {
    200: {
      description: 'The profile with the outcome of the domain proof just checked',
      schema: EnterpriseProfile,
    },
  },
  handler: async (request, { clients, config }) =>
    presentEnterpriseProfile(
      await clients.keys.checkEnterpriseDomain({ principal: principalOf(request) }),
      config.HALLMARK_PUBLIC_URL,
    ),
});

export default async function enterpriseProfile(app: FastifyInstance, deps: RouteDeps) {
  registerEndpoints(app, deps, [getEnterpriseProfile, setEnterpriseProfile, checkEnterpriseDomain]);
}
