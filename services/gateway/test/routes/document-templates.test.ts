// routes/document-templates/: notify's document templates (`/api/v1/templates`), users named
// by their session `sub` (notify asks keys and answers the `*_display` fields: each route is
// one call, and the gateway never asks keys itself); not the warranty template.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectRefusals, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const READ = { scope: 'reports.read', wrongScope: 'transactions.read' };
const WRITE = { scope: 'reports.create', wrongScope: 'reports.read' };
/** Notify names the owner row `usr_row_1` by its session `sub`, `alice`. */

const template = () => ({
  id: 'tpl_1',
  name: 'Receipt',
  type: 'invoice',
  kind: 'document',
  variables: [],
  attachments: [],
  steps: [],
  conditions: [],
  version: 2,
  owner_id: 'usr_row_1',
  owner_display: 'alice',
  livemode: true,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
  access: [],
});

describe('GET /api/v1/templates', () =>
  routeCase(() => h, 'templates', {
    ...READ,
    req: { method: 'GET', url: '/api/v1/templates?limit=5' },
    call: 'listTemplates',
    answer: () => ({ templates: [template()], pagination: { page: 1, limit: 5, total: 1, total_pages: 1 } }),
    status: 200,
    shape: { templates: [{ id: 'tpl_1', name: 'Receipt', ownerId: 'alice' }], pagination: { total: 1 } },
    sent: { name_actors: true },
    bad: { url: '/api/v1/templates?limit=0', param: 'limit' },
    error: new HallmarkError('service_unavailable'),
  }));

describe('GET /api/v1/templates/:template_id', () =>
  routeCase(() => h, 'templates', {
    ...READ,
    req: { method: 'GET', url: '/api/v1/templates/tpl_1' },
    call: 'getTemplate',
    answer: () => template(),
    status: 200,
    shape: { id: 'tpl_1', version: 2, ownerId: 'alice' },
    sent: { template_id: 'tpl_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('DELETE /api/v1/templates/:template_id', () =>
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: { method: 'DELETE', url: '/api/v1/templates/tpl_1' },
    call: 'deleteTemplate',
    answer: () => ({ id: 'tpl_1', deleted: true }),
    status: 200,
    shape: { id: 'tpl_1', deleted: true },
    sent: { template_id: 'tpl_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('GET /api/v1/templates/:template_id/versions', () =>
  routeCase(() => h, 'templates', {
    ...READ,
    req: { method: 'GET', url: '/api/v1/templates/tpl_1/versions' },
    call: 'listTemplateVersions',
    answer: () => ({
      versions: [
        {
          id: 'tv_1',
          template_id: 'tpl_1',
          version: 1,
          variables: [],
          created_at: '2025-01-01T00:00:00.000Z',
          created_by: 'usr_row_1',
          created_by_display: 'alice',
          changelog: 'first',
        },
      ],
    }),
    status: 200,
    shape: { versions: [{ version: 1, createdBy: 'alice', changelog: 'first' }] },
    sent: { template_id: 'tpl_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/templates', () =>
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: { method: 'POST', url: '/api/v1/templates', payload: { name: 'Receipt', type: 'invoice' } },
    call: 'createTemplate',
    answer: () => template(),
    status: 201,
    shape: { id: 'tpl_1', name: 'Receipt', ownerId: 'alice' },
    sent: { name: 'Receipt', type: 'invoice' },
    bad: { payload: { type: 'invoice' }, param: 'name' },
    error: new HallmarkError('parameter_invalid', { param: 'template' }),
  }));

describe('PATCH /api/v1/templates/:template_id', () =>
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: { method: 'PATCH', url: '/api/v1/templates/tpl_1', payload: { name: 'Receipt 2' } },
    call: 'updateTemplate',
    answer: () => ({ ...template(), name: 'Receipt 2', version: 3 }),
    status: 200,
    shape: { id: 'tpl_1', name: 'Receipt 2', version: 3 },
    sent: { template_id: 'tpl_1', name: 'Receipt 2' },
    bad: { payload: {}, param: 'body' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/templates/:template_id/versions/:version/restore', () =>
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: {
      method: 'POST',
      url: '/api/v1/templates/tpl_1/versions/1/restore',
      payload: { changelog: 'back' },
    },
    call: 'restoreTemplateVersion',
    answer: () => ({ ...template(), version: 3 }),
    status: 200,
    shape: { id: 'tpl_1', version: 3 },
    sent: { template_id: 'tpl_1', version: 1, changelog: 'back' },
    bad: { url: '/api/v1/templates/tpl_1/versions/0/restore', param: 'version' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/templates/:template_id/render', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/v1/templates/tpl_1/render',
    payload: { locale: 'de-DE' },
  };

  it('sends rendered HTML inline and sandboxed, never sniffed', async () => {
    h.answer('templates', 'renderTemplate', async () => ({
      content: Buffer.from('<p>Hi</p>'),
      content_type: 'text/html; charset=utf-8',
      filename: 'receipt.html',
      format: 'html',
    }));
    const res = await h.app.inject({ ...req, headers: h.keyWith(['reports.export']) });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<p>Hi</p>');
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['content-disposition']).toBe('inline; filename="receipt.html"');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(h.callsTo('templates', 'renderTemplate')[0]).toMatchObject({
      template_id: 'tpl_1',
      locale: 'de-DE',
    });
  });

  it('refuses a locale past 35 characters with 400, before any call', async () => {
    const res = await h.app.inject({ ...req, payload: { locale: 'x'.repeat(36) }, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ param: 'locale' });
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential, 403 without reports.read or reports.export', async () => {
    await expectRefusals(h, req, h.keyWith(['reports.create']));
  });

  it("maps the service's missing variable (400) to the versioned envelope", async () => {
    await expectMapped(
      h,
      ['templates', 'renderTemplate'],
      new HallmarkError('parameter_missing', { param: 'name' }),
      {
        ...req,
        headers: h.session,
      },
    );
  });
});

/** Access answers name users by `sub` (notify's `*_display`): `usr_row_1` is alice, `usr_row_2` bob. */
const access = (grants: object[] = []) => ({
  template_id: 'tpl_1',
  owner_id: 'usr_row_1',
  owner_display: 'alice',
  grants,
});
const bobReads = {
  user_id: 'usr_row_2',
  access: ['read'],
  granted_by: 'usr_row_1',
  granted_at: '2025-01-01T00:00:00.000Z',
  user_display: 'bob',
  granted_by_display: 'alice',
};

describe('GET /api/v1/templates/:template_id/access', () =>
  routeCase(() => h, 'templates', {
    ...READ,
    req: { method: 'GET', url: '/api/v1/templates/tpl_1/access' },
    call: 'listTemplateAccess',
    answer: () => access([bobReads]),
    status: 200,
    shape: {
      templateId: 'tpl_1',
      ownerId: 'alice',
      grants: [{ userId: 'bob', access: ['read'], grantedBy: 'alice' }],
    },
    sent: { template_id: 'tpl_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/templates/:template_id/access', () => {
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: {
      method: 'POST',
      url: '/api/v1/templates/tpl_1/access',
      payload: { userIds: ['bob'], permissions: ['read'] },
    },
    call: 'grantTemplateAccess',
    answer: () => access([bobReads]),
    status: 200,
    shape: { grants: [{ userId: 'bob', access: ['read'] }] },
    // The user as the client named them: notify checks them with keys.
    sent: { user_ids: ['bob'], access: ['read'] },
    bad: { payload: { userIds: ['bob'], permissions: ['own'] }, param: 'permissions.0' },
    error: new HallmarkError('resource_not_found'),
  });

  it("answers notify's refusal of a user outside the enterprise as 400 on userIds, asking keys nothing itself", async () => {
    h.answer('templates', 'grantTemplateAccess', async () => {
      throw new HallmarkError('parameter_invalid', {
        param: 'userIds',
        message: "'mallory' is not a user or API key of your enterprise.",
      });
    });
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/templates/tpl_1/access',
      payload: { userIds: ['mallory'], permissions: ['read'] },
      headers: h.session,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'userIds',
      message: "'mallory' is not a user or API key of your enterprise.",
    });
    expect(h.callsTo('keys', 'checkActors')).toEqual([]);
  });
});

describe('DELETE /api/v1/templates/:template_id/access/:user_id', () =>
  routeCase(() => h, 'templates', {
    ...WRITE,
    req: { method: 'DELETE', url: '/api/v1/templates/tpl_1/access/bob?permissions=read' },
    call: 'revokeTemplateAccess',
    answer: () => access(),
    status: 200,
    shape: { templateId: 'tpl_1', grants: [] },
    sent: { user_id: 'bob', access: ['read'] },
    bad: { url: '/api/v1/templates/tpl_1/access/bob?permissions=own', param: 'permissions.0' },
    error: new HallmarkError('resource_not_found'),
  }));
