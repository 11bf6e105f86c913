// routes/document-templates/: notify's document templates (`/api/v1/templates`), users named
// by their session `sub` through the keys service's CheckActors; not the warranty template.
import { afterAll, beforeAll, beforeEach, describe } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const READ = { scope: 'reports.read', wrongScope: 'transactions.read' };
const WRITE = { scope: 'reports.create', wrongScope: 'reports.read' };
/** The keys service names the owner row `usr_row_1` by its session `sub`, `alice`. */
const ACTORS: [any, string, (req: any) => Promise<any>] = [
  'keys',
  'checkActors',
  async () => ({ actors: [{ ref: 'usr_row_1', id: 'usr_row_1', display: 'alice' }] }),
];

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
    also: [ACTORS],
    status: 200,
    shape: { templates: [{ id: 'tpl_1', name: 'Receipt', ownerId: 'alice' }], pagination: { total: 1 } },
    sent: {},
    bad: { url: '/api/v1/templates?limit=0', param: 'limit' },
    error: new HallmarkError('service_unavailable'),
  }));

describe('GET /api/v1/templates/:template_id', () =>
  routeCase(() => h, 'templates', {
    ...READ,
    req: { method: 'GET', url: '/api/v1/templates/tpl_1' },
    call: 'getTemplate',
    answer: () => template(),
    also: [ACTORS],
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
          changelog: 'first',
        },
      ],
    }),
    also: [ACTORS],
    status: 200,
    shape: { versions: [{ version: 1, createdBy: 'alice', changelog: 'first' }] },
    sent: { template_id: 'tpl_1' },
    error: new HallmarkError('resource_not_found'),
  }));
