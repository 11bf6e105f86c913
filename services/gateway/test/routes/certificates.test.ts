// routes/certificates/: the public read, the health probe, setting a warranty and the search.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificate } from './fixtures.js';
import { errorCode, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const cert = certificate;

const WARRANTY = {
  period: 2,
  type: 'Manufacturer',
  startDate: '2025-01-01',
  coverage: 'All parts',
  claimProcess: 'Write to us',
  contactInfo: 'care@example.com',
};

describe('GET /api/certificate/public/:id', () => {
  it('answers the public certificate without a credential', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => cert());
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'cert_1', name: 'Lamp', metadata: { sku: 'L1' }, burned: false });
    expect(h.callsTo('certificates', 'getPublicCertificate')).toEqual([{ certificate_id: 'cert_1' }]);
  });

  it("maps the service's not-found to 404 in the api envelope", async () => {
    h.answer('certificates', 'getPublicCertificate', async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
    });
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_x' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'resource_not_found' });
  });

  it('batches the cache misses of concurrent reads into one GetPublicCertificates call; an unknown id among them is 404 as when read alone', async () => {
    h.answer('certificates', 'getPublicCertificates', async (r: { certificate_ids: string[] }) => ({
      certificates: r.certificate_ids.filter((id) => id !== 'cert_gone').map((id) => cert({ id })),
    }));
    h.answer('certificates', 'getPublicCertificate', async () => {
      throw new Error('a batched read went alone');
    });
    const ids = ['cert_a', 'cert_b', 'cert_gone', 'cert_c'];
    const answers = await Promise.all(
      ids.map((id) => h.app.inject({ method: 'GET', url: `/api/certificate/public/${id}` })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 404, 200]);
    expect(answers.map((a) => (a.statusCode === 200 ? a.json().id : a.json().code))).toEqual([
      'cert_a',
      'cert_b',
      'resource_not_found',
      'cert_c',
    ]);
    expect(answers[2]!.json().error).toBe("No such certificate: 'cert_gone'.");
    expect(h.callsTo('certificates', 'getPublicCertificates')).toEqual([{ certificate_ids: ids }]);
  });

  it('serves repeated reads from the cache with a strong ETag, a CDN Cache-Control and 304 on If-None-Match', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => cert());
    const first = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    const second = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['cache-control']).toBe('public, max-age=5, stale-while-revalidate=30');
    expect(h.callsTo('certificates', 'getPublicCertificate')).toHaveLength(1);
    const notModified = await h.app.inject({
      method: 'GET',
      url: '/api/certificate/public/cert_1',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    const other = await h.app.inject({
      method: 'GET',
      url: '/api/certificate/public/cert_1',
      headers: { 'if-none-match': '"not-it"' },
    });
    expect(other.statusCode).toBe(200);
  });

  it('drops the entry when the certificate changes: the next read asks the service again', async () => {
    let name = 'Lamp';
    h.answer('certificates', 'getPublicCertificate', async () => ({ ...cert(), name }));
    const before = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    name = 'Lamp (burned)';
    h.app.publicCache.invalidate('cert_1');
    const after = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    expect(after.json().name).toBe('Lamp (burned)');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('caches an unknown id as 404 (one call for many scans), but never a failure', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
    });
    for (let i = 0; i < 3; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_y' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'resource_not_found' });
    }
    expect(h.callsTo('certificates', 'getPublicCertificate')).toHaveLength(1);
    h.answer('certificates', 'getPublicCertificate', async () => {
      throw new HallmarkError('service_unavailable');
    });
    for (let i = 0; i < 2; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_z' });
      expect(res.statusCode).toBe(503);
    }
    expect(h.callsTo('certificates', 'getPublicCertificate')).toHaveLength(3);
  });
});

describe('GET /api/certificate/health', () => {
  const health = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/health' });
    return { status: res.statusCode, body: res.json() };
  };
  const only = (status: string) => ({ status, timestamp: expect.any(String) });

  it('tells the public only ok (200) or degraded (503) and the time, naming no database, chain or relayer state', async () => {
    h.answer('certificates', 'health', async () => ({ database: true, chain: true }));
    expect(await health()).toEqual({ status: 200, body: only('ok') });
    h.answer('certificates', 'health', async () => {
      throw new HallmarkError('service_unavailable');
    });
    expect(await health()).toEqual({ status: 503, body: only('degraded') });
    h.answer('certificates', 'health', async () => ({ database: true, chain: false }));
    expect(await health()).toEqual({ status: 503, body: only('degraded') });
  });

  it('is 503 degraded when the relayer balance is under its floor (not saying why)', async () => {
    h.answer('certificates', 'health', async () => ({
      database: true,
      chain: true,
      relayer_low: true,
      relayer_balance_wei: '1000',
    }));
    expect(await health()).toEqual({ status: 503, body: only('degraded') });
  });
});

describe('PATCH /api/certificates/:id/warranty', () => {
  const url = '/api/certificates/cert_1/warranty';

  it('sets the warranty and answers it with the certificate', async () => {
    h.answer('warranty', 'setWarranty', async () => ({
      changed: true,
      // The warranty as the service stores it (warrantyView): the answer is serialised by its
      // declared schema, so a partial one would not be sent.
      warranty_json: JSON.stringify({
        period: 2,
        type: 'Manufacturer',
        startDate: '2025-01-01',
        endDate: '2027-01-01',
        coverage: 'Parts',
        claimProcess: 'Write to us',
        contactInfo: 'support@example.com',
        status: 'active',
      }),
      certificate: cert(),
    }));
    const res = await h.app.inject({
      method: 'PATCH',
      url,
      headers: h.keyWith(['transactions.update']),
      payload: WARRANTY,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      changed: true,
      warranty: { period: 2, status: 'active' },
    });
    expect(h.callsTo('warranty', 'setWarranty')[0]).toMatchObject({
      certificate_id: 'cert_1',
      warranty: { period: '2', type: 'Manufacturer', start_date: '2025-01-01' },
    });
  });

  it('refuses a body missing a required field with 400 naming it, before any call', async () => {
    const { contactInfo: _, ...body } = WARRANTY;
    const res = await h.app.inject({
      method: 'PATCH',
      url,
      headers: h.keyWith(['transactions.update']),
      payload: body,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'parameter_missing', param: 'contactInfo' });
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential and 403 for a key without transactions.update', async () => {
    const anon = await h.app.inject({ method: 'PATCH', url, payload: WARRANTY });
    expect(anon.statusCode).toBe(401);
    const wrong = await h.app.inject({
      method: 'PATCH',
      url,
      headers: h.keyWith(['certificates.read']),
      payload: WARRANTY,
    });
    expect(wrong.statusCode).toBe(403);
    expect(errorCode(wrong.json())).toBe('insufficient_permissions');
    expect(h.calls).toEqual([]);
  });

  it("maps the service's 404 and validation errors to the api envelope", async () => {
    h.answer('warranty', 'setWarranty', async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
    });
    const missing = await h.app.inject({ method: 'PATCH', url, headers: h.session, payload: WARRANTY });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ success: false, code: 'resource_not_found' });
    h.answer('warranty', 'setWarranty', async () => {
      throw new HallmarkError('parameter_invalid', { param: 'termsUrl', message: 'termsUrl must be https.' });
    });
    const invalid = await h.app.inject({ method: 'PATCH', url, headers: h.session, payload: WARRANTY });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'parameter_invalid', param: 'termsUrl' });
  });
});

describe('GET /api/certificates/search', () => {
  const summary = {
    id: 'cert_1',
    name: 'Lamp',
    status: 'minted',
    token_id: 7,
    gtin: '09506000134352',
    serial: 'S1',
    reference_number: 'HM-ABCD-EFGH-J',
    created_at: '2026-11-25T00:00:00.000Z',
    livemode: true,
  };
  routeCase(() => h, 'search', {
    req: { method: 'GET', url: '/api/certificates/search?email=Jane%40example.test&product=lamp&limit=5' },
    scope: 'transactions.read',
    wrongScope: 'vouchers.read',
    call: 'searchCertificates',
    answer: () => ({
      certificates: [
        summary,
        {
          ...summary,
          id: 'cert_2',
          token_id: undefined,
          gtin: undefined,
          serial: undefined,
          reference_number: undefined,
        },
      ],
      page: { page: 1, limit: 5, total: 2, total_pages: 1 },
    }),
    status: 200,
    shape: {
      success: true,
      data: {
        certificates: [
          {
            id: 'cert_1',
            name: 'Lamp',
            status: 'minted',
            tokenId: 7,
            gtin: '09506000134352',
            serial: 'S1',
            referenceNumber: 'HM-ABCD-EFGH-J',
            createdAt: '2026-11-25T00:00:00.000Z',
            livemode: true,
          },
          { id: 'cert_2', tokenId: null, gtin: null, serial: null, referenceNumber: null },
        ],
        pagination: { page: 1, limit: 5, totalPages: 1, totalItems: 2 },
      },
    },
    sent: { email: 'Jane@example.test', product: 'lamp', page: { page: 1, limit: 5 } },
    bad: { url: '/api/certificates/search?product=lamp&limit=101', param: 'limit' },
    error: new HallmarkError('parameter_invalid', { param: 'referenceNumber' }),
  });

  it('refuses a query without any criterion (or only blank ones) with 400 parameter_missing, before any call', async () => {
    for (const q of ['', '?page=2', '?referenceNumber=&product=%20&email=']) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/certificates/search${q}`,
        headers: h.session,
      });
      expect([q, res.statusCode, errorCode(res.json())]).toEqual([q, 400, 'parameter_missing']);
    }
    expect(h.calls).toEqual([]);
  });

  it('refuses unknown or overlong parameters with 400 before any call', async () => {
    for (const q of ['?name=lamp', `?product=${'x'.repeat(201)}`, `?referenceNumber=${'H'.repeat(33)}`]) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/certificates/search${q}`,
        headers: h.session,
      });
      expect([q.slice(0, 20), res.statusCode]).toEqual([q.slice(0, 20), 400]);
    }
    expect(h.calls).toEqual([]);
  });
});
