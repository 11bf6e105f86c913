// routes/enterprise-profile/: the issuer profile (owners and admins; the keys service checks
// the role) and its domain proof re-check.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { ENT, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const profile = (over: object = {}) => ({
  enterprise_id: ENT,
  display_name: 'Maison Test',
  website: 'https://brand.example/',
  logo_url: 'https://brand.example/logo.png',
  domain_status: 'verified',
  domain_checked_at: '2026-01-01T00:00:00.000Z',
  domain_detail: '',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});
const shape = {
  enterpriseId: ENT,
  displayName: 'Maison Test',
  website: 'https://brand.example/',
  logoUrl: 'https://brand.example/logo.png',
  domain: { host: 'brand.example', status: 'verified', checkedAt: '2026-01-01T00:00:00.000Z', detail: null },
};
const ADMIN = { scope: 'admin.*', wrongScope: 'transactions.read' };

describe('GET /api/v1/enterprise/profile', () => {
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/enterprise/profile' },
    call: 'getEnterpriseProfile',
    answer: () => profile(),
    status: 200,
    shape,
    sent: { principal: { enterprise_id: ENT } },
    error: new HallmarkError('resource_not_found', { message: 'This enterprise has no issuer profile yet.' }),
  });
});

describe('PUT /api/v1/enterprise/profile', () => {
  const payload = { displayName: 'Maison Test', website: 'https://brand.example/', logoUrl: null };
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'PUT', url: '/api/v1/enterprise/profile', payload },
    call: 'putEnterpriseProfile',
    answer: () => profile({ logo_url: undefined, domain_status: 'unverified', domain_detail: 'HTTP 404.' }),
    status: 200,
    shape: { logoUrl: null, domain: { status: 'unverified', detail: 'HTTP 404.' } },
    sent: { display_name: 'Maison Test', website: 'https://brand.example/' },
    bad: { payload: { website: 'https://brand.example/' }, param: 'displayName' },
    error: new HallmarkError('insufficient_permissions', {
      extras: { required_permission: 'enterprise_admin' },
    }),
  });

  const LOGO_SHA = 'c0ffee00'.repeat(8);
  const archived = { sha256: LOGO_SHA, content_type: 'image/png', size: 900, width: 240, height: 80 };

  it('archives the logo through the media store and keeps Hallmark’s copy with the URL as its source', async () => {
    h.answer('keys', 'getEnterpriseProfile', async () => profile());
    h.answer('media', 'archiveImageUrl', async () => ({ media: archived }));
    h.answer('keys', 'putEnterpriseProfile', async () =>
      profile({ logo_sha256: LOGO_SHA, logo_width: 240, logo_height: 80, indexable: true }),
    );
    const res = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/enterprise/profile',
      payload: { ...payload, logoUrl: 'https://brand.example/logo.png', indexable: true },
      headers: h.session,
    });
    expect(res.statusCode).toBe(200);
    expect(h.callsTo('media', 'archiveImageUrl')[0]).toMatchObject({ url: 'https://brand.example/logo.png' });
    expect(h.callsTo('keys', 'putEnterpriseProfile')[0]).toMatchObject({
      logo_url: 'https://brand.example/logo.png',
      logo_sha256: LOGO_SHA,
      logo_width: 240,
      logo_height: 80,
      indexable: true,
    });
    expect(res.json()).toMatchObject({
      logoUrl: 'https://brand.example/logo.png',
      logo: { sha256: LOGO_SHA, width: 240, height: 80 },
      indexable: true,
    });
    expect(new URL(res.json().logo.url).pathname).toBe(`/media/${LOGO_SHA}`);
  });

  it('a logo that cannot be fetched is a 400 naming logoUrl, nothing saved; a member fetches nothing', async () => {
    h.answer('keys', 'getEnterpriseProfile', async () => profile());
    h.answer('media', 'archiveImageUrl', async () => {
      throw new HallmarkError('parameter_invalid', {
        param: 'image_url',
        message: 'The image answered HTTP 404.',
      });
    });
    const bad = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/enterprise/profile',
      payload: { ...payload, logoUrl: 'https://brand.example/gone.png' },
      headers: h.session,
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('logoUrl');
    expect(h.callsTo('keys', 'putEnterpriseProfile')).toHaveLength(0);

    h.reset();
    h.answer('keys', 'getEnterpriseProfile', async () => {
      throw new HallmarkError('insufficient_permissions', {
        extras: { required_permission: 'enterprise_admin' },
      });
    });
    const member = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/enterprise/profile',
      payload: { ...payload, logoUrl: 'https://brand.example/logo.png' },
      headers: h.session,
    });
    expect(member.statusCode).toBe(403);
    expect(h.callsTo('media', 'archiveImageUrl')).toHaveLength(0);
  });
});

describe('POST /api/v1/enterprise/profile/domain-check', () => {
  routeCase(() => h, 'keys', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/enterprise/profile/domain-check' },
    call: 'checkEnterpriseDomain',
    answer: () => profile(),
    status: 200,
    shape,
    sent: { principal: { enterprise_id: ENT } },
    error: new HallmarkError('resource_not_found', { message: 'This enterprise has no issuer profile yet.' }),
  });
});
