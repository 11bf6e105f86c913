// /api/v1/templates/{template_id}/access: the owner and the read/write/delete grants of a
// template. Users are named by their session `sub` in and out: notify checks the grantees
// with keys (an id of another enterprise, or none, is refused like a typo) and names every
// actor (the `*_display` fields), so each route is one call.
import type { TemplateAccess } from '@hallmark/proto/notify/v1/templates';
import type { FastifyInstance } from 'fastify';
import { idParam, principalOf, type RouteDeps } from '../shared.js';

const TAGS = ['Templates'];
const READ = { auth: 'either' as const, scope: 'reports.read' };
const WRITE = { auth: 'either' as const, scope: 'reports.create' };
const LEVELS = ['read', 'write', 'delete'];
const text = (maxLength: number) => ({ type: 'string', maxLength });

export default async function templateAccess(app: FastifyInstance, { clients }: RouteDeps) {
  const api = clients.templates;
  const templateId = idParam('template_id');

  const present = (a: TemplateAccess) => ({
    templateId: a.template_id,
    ownerId: a.owner_display,
    grants: a.grants.map((g) => ({
      userId: g.user_display,
      access: g.access,
      grantedBy: g.granted_by_display,
      grantedAt: g.granted_at,
    })),
  });

  app.get<{ Params: { template_id: string } }>(
    '/api/v1/templates/:template_id/access',
    { config: READ, schema: { tags: TAGS, summary: 'The owner and the access grants', params: templateId } },
    async (request) => {
      const access = await api.listTemplateAccess(
        { principal: principalOf(request), template_id: request.params.template_id },
        { idempotent: true },
      );
      return present(access);
    },
  );

  app.post<{ Params: { template_id: string }; Body: { userIds: string[]; permissions: string[] } }>(
    '/api/v1/templates/:template_id/access',
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Grant read, write or delete to users of your enterprise (owner only)',
        description:
          'Every id in `userIds` must be a user of your enterprise, named by its session `sub` (the API’s user ' +
          'id), or an API key (apikey_…) of it; any other id is a 400 parameter_invalid on userIds and nothing ' +
          'is granted.',
        params: templateId,
        body: {
          type: 'object',
          required: ['userIds', 'permissions'],
          additionalProperties: false,
          properties: {
            userIds: { type: 'array', minItems: 1, maxItems: 100, items: text(80) },
            permissions: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: LEVELS } },
          },
        },
      },
    },
    async (request) => {
      const access = await api.grantTemplateAccess({
        principal: principalOf(request),
        template_id: request.params.template_id,
        user_ids: request.body.userIds,
        access: request.body.permissions,
      });
      return present(access);
    },
  );

  app.delete<{ Params: { template_id: string; user_id: string }; Querystring: { permissions?: string[] } }>(
    '/api/v1/templates/:template_id/access/:user_id',
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: "Revoke a user's access (all levels, or those in `permissions`; owner only)",
        description: '`user_id` is the user’s session `sub` (or an API key id).',
        params: {
          type: 'object',
          required: ['template_id', 'user_id'],
          additionalProperties: false,
          properties: { template_id: text(64), user_id: text(80) },
        },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            permissions: { type: 'array', maxItems: 3, items: { type: 'string', enum: LEVELS } },
          },
        },
      },
    },
    async (request) => {
      const access = await api.revokeTemplateAccess({
        principal: principalOf(request),
        template_id: request.params.template_id,
        user_id: request.params.user_id,
        access: request.query.permissions ?? [],
      });
      return present(access);
    },
  );
}
