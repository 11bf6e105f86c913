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

  it('one call to keys with the logo URL (keys archives it); answers Hallmark’s copy with the URL as its source', async () => {
    h.answer('keys', 'putEnterpriseProfile', async () =>
      profile({ logo_sha256: LOGO_SHA, logo_width: 240, logo_height: 80, indexable: true }),
    );
    const res = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/enterprise/profile',
      payload: { ...payload, logoUrl: ' https://brand.example/logo.png ', indexable: true },
      headers: h.session,
    });
    expect(res.statusCode).toBe(200);
    expect(h.callsTo('keys', 'putEnterpriseProfile')).toEqual([
      expect.objectContaining({ logo_url: 'https://brand.example/logo.png', indexable: true }),
    ]);
    expect(h.callsTo('media', 'archiveImageUrl')).toHaveLength(0);
    expect(res.json()).toMatchObject({
      logoUrl: 'https://brand.example/logo.png',
      logo: { sha256: LOGO_SHA, width: 240, height: 80 },
      indexable: true,
    });
    expect(new URL(res.json().logo.url).pathname).toBe(`/media/${LOGO_SHA}`);
  });

  it('a logo keys refuses is its 400 naming logoUrl, passed on as worded', async () => {
    const message = 'could not fetch logoUrl: the URL did not answer with a PNG, JPEG, WebP or GIF image';
    h.answer('keys', 'putEnterpriseProfile', async () => {
      throw new HallmarkError('parameter_invalid', { param: 'logoUrl', message });
    });
    const bad = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/enterprise/profile',
      payload: { ...payload, logoUrl: 'https://brand.example/gone.png' },
      headers: h.session,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'logoUrl', message });
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
