// routes/warranty-templates/: the enterprise's warranty template (not a document template).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

// A field as the certificates service defines it: the answer's schema names every one.
const field = {
  name: 'period',
  label: 'Warranty period',
  type: 'select',
  required: true,
  description: 'Years',
};

const template = (created: boolean) => ({
  id: 'tmpl_1',
  name: 'Warranty',
  fields_json: JSON.stringify([field]),
  created_at: '2025-01-01T00:00:00.000Z',
  created,
});

describe('POST /api/enterprise/templates/init-warranty', () => {
  const req = { method: 'POST' as const, url: '/api/enterprise/templates/init-warranty' };

  it('creates the template (201) and answers the same one again (200)', async () => {
    h.answer('warranty', 'initWarrantyTemplate', async () => template(true));
    const first = await h.app.inject({ ...req, headers: h.session });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ id: 'tmpl_1', name: 'Warranty', fields: [field] });
    h.answer('warranty', 'initWarrantyTemplate', async () => template(false));
    const again = await h.app.inject({ ...req, headers: h.session });
    expect(again.statusCode).toBe(200);
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's errors to the api envelope", async () => {
    await expectMapped(h, ['warranty', 'initWarrantyTemplate'], new HallmarkError('service_unavailable'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('GET /api/enterprise/templates/:id', () => {
  const req = { method: 'GET' as const, url: '/api/enterprise/templates/tmpl_1' };

  it('answers the template with its fields', async () => {
    h.answer('warranty', 'getWarrantyTemplate', async () => template(false));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: 'tmpl_1',
      fields: [{ name: 'period' }],
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    expect(h.callsTo('warranty', 'getWarrantyTemplate')[0]).toMatchObject({ template_id: 'tmpl_1' });
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps another enterprise's template (404) to the api envelope", async () => {
    await expectMapped(h, ['warranty', 'getWarrantyTemplate'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});
