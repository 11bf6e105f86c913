// /api/v1/enterprise/profile: the enterprise's issuer profile (display name, website, logo
// URL) that the verify, voucher and claim pages and the public certificate read name the
// issuer by, and the state of its domain proof (`/.well-known/hallmark-issuer.json` on the
// website's host naming the enterprise id; checked by the keys service through the outbound
// guard on every save and on POST …/domain-check). Needs admin.*; the keys service further
// requires the user (or the user behind the key) to be an owner or admin: fails closed.
import type { EnterpriseProfile } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance } from 'fastify';
import { principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Enterprise'];
const ADMIN = { auth: 'either' as const, scope: 'admin.*' };

export function presentEnterpriseProfile(p: EnterpriseProfile) {
  return {
    enterpriseId: p.enterprise_id,
    displayName: p.display_name,
    website: p.website,
    logoUrl: p.logo_url ?? null,
    domain: {
      host: new URL(p.website).host,
      status: p.domain_status,
      checkedAt: p.domain_checked_at,
      detail: p.domain_detail || null,
    },
    updatedAt: p.updated_at,
  };
}

export default async function enterpriseProfile(app: FastifyInstance, { clients }: RouteDeps) {
  app.get(
    '/api/v1/enterprise/profile',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: "The enterprise's issuer profile and its domain proof state (owners and admins)",
      },
    },
    async (request) =>
      presentEnterpriseProfile(
        await clients.keys.getEnterpriseProfile({ principal: principalOf(request) }, { idempotent: true }),
      ),
  );

  app.put<{ Body: { displayName: string; website: string; logoUrl?: string | null } }>(
    '/api/v1/enterprise/profile',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: "Set the enterprise's issuer profile; checks the domain proof (owners and admins)",
        description:
          'The public pages say "Issued by <displayName>". The domain is verified when ' +
          '`https://<website host>/.well-known/hallmark-issuer.json` is a JSON object whose `enterpriseId` is ' +
          "this enterprise's id; a failed proof is stored as unverified with the reason, never an error. The " +
          'logo is kept as the URL given.',
        body: {
          type: 'object',
          required: ['displayName', 'website'],
          additionalProperties: false,
          properties: {
            displayName: { type: 'string', maxLength: 100 },
            website: { type: 'string', maxLength: 2048, description: 'https URL of the brand site' },
            logoUrl: { type: ['string', 'null'], maxLength: 2048, description: 'https URL of the logo' },
          },
        },
      },
    },
    async (request) => {
      const b = request.body;
      const saved = await clients.keys.putEnterpriseProfile({
        principal: principalOf(request),
        display_name: b.displayName,
        website: b.website,
        ...(b.logoUrl ? { logo_url: b.logoUrl } : {}),
      });
      return presentEnterpriseProfile(saved);
    },
  );

  app.post(
    '/api/v1/enterprise/profile/domain-check',
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'Re-check the domain proof of the issuer profile now (owners and admins)',
      },
    },
    async (request) =>
      presentEnterpriseProfile(await clients.keys.checkEnterpriseDomain({ principal: principalOf(request) })),
  );
}
