// /api/v1/templates/{template_id}/access: the owner and the read/write/delete grants of a
// template. Users are named by their session `sub` in and out: notify checks the grantees
// with keys (an id of another enterprise, or none, is refused like a typo) and names every
// actor (the `*_display` fields), so each route is one call.
import type { TemplateAccess as AccessRecord } from '@hallmark/proto/notify/v1/templates';
import { defineEndpoint } from '../../endpoint/define.js';
import { closed, list, oneOf, str, time, Type, type Static } from '../../endpoint/schema.js';
import { principalOf } from '../shared.js';
import { READ, TAGS, WRITE } from './fields.js';
import { templateParams } from './templates.js';

const LEVELS = ['read', 'write', 'delete'];

const TemplateAccess = Type.Object({
  templateId: str(64),
  ownerId: str(255, 'A user’s session `sub`, or an API key id'),
  grants: list(
    Type.Object({
      userId: str(255, 'The user’s session `sub`'),
      access: list(oneOf(LEVELS), 3),
      grantedBy: str(255),
      grantedAt: time,
    }),
    1000,
  ),
});

const present = (a: AccessRecord): Static<typeof TemplateAccess> => ({
  templateId: a.template_id,
  ownerId: a.owner_display,
  grants: a.grants.map((g) => ({
    userId: g.user_display,
    access: g.access,
    grantedBy: g.granted_by_display,
    grantedAt: g.granted_at,
  })),
});

export const listTemplateGrants = defineEndpoint({
  method: 'GET',
  url: '/api/v1/templates/:template_id/access',
  operationId: 'listTemplateGrants',
  tags: TAGS,
  summary: 'The owner and the access grants',
  access: READ,
  params: templateParams,
  responses: {
    200: {
      description: 'The owner and the grants; users named by their session `sub`',
      schema: TemplateAccess,
    },
  },
  handler: async (request, { clients }) => {
    const access = await clients.templates.listTemplateAccess(
      { principal: principalOf(request), template_id: request.params.template_id },
      { idempotent: true },
    );
    return present(access);
  },
});

export const grantTemplateAccess = defineEndpoint({
  method: 'POST',
  url: '/api/v1/templates/:template_id/access',
  operationId: 'grantTemplateAccess',
  tags: TAGS,
  summary: 'Grant read, write or delete to users of your enterprise (owner only)',
  description:
    'Every id in `userIds` must be a user of your enterprise, named by its session `sub` (the API’s user ' +
    'id), or an API key (apikey_…) of it; any other id is a 400 parameter_invalid on userIds and nothing ' +
    'is granted.',
  access: WRITE,
  params: templateParams,
  body: closed({
    userIds: Type.Array(str(80), { minItems: 1, maxItems: 100 }),
    permissions: Type.Array(oneOf(LEVELS), { minItems: 1, maxItems: 3 }),
  }),
  responses: {
    200: { description: 'The owner and the grants after the change', schema: TemplateAccess },
  },
  handler: async (request, { clients }) => {
    const access = await clients.templates.grantTemplateAccess({
      principal: principalOf(request),
      template_id: request.params.template_id,
      user_ids: request.body.userIds,
      access: request.body.permissions,
    });
    return present(access);
  },
});

export const revokeTemplateAccess = defineEndpoint({
  method: 'DELETE',
  url: '/api/v1/templates/:template_id/access/:user_id',
  operationId: 'revokeTemplateAccess',
  tags: TAGS,
  summary: "Revoke a user's access (all levels, or those in `permissions`; owner only)",
  description: '`user_id` is the user’s session `sub` (or an API key id).',
  access: WRITE,
  params: closed({ template_id: str(64), user_id: str(80) }),
  querystring: closed({ permissions: Type.Optional(list(oneOf(LEVELS), 3)) }),
  responses: {
    200: { description: 'The owner and the grants after the change', schema: TemplateAccess },
  },
  handler: async (request, { clients }) => {
    const access = await clients.templates.revokeTemplateAccess({
      principal: principalOf(request),
      template_id: request.params.template_id,
      user_id: request.params.user_id,
      access: request.query.permissions ?? [],
    });
    return present(access);
  },
});
