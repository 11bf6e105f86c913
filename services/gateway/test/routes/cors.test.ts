// The CORS boundary (plugins/cors.ts): every endpoint declared with public access is open to
// every origin without credentials (Access-Control-Allow-Origin: *, never -Allow-Credentials,
// Cross-Origin-Resource-Policy: cross-origin, its preflight answered); every authenticated one
// answers no CORS header, so its preflight and its answer are refused by a browser. Walked
// over the whole route catalogue, so an endpoint declared later is covered with no new test.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { certificate } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const ORIGIN = 'https://marketplace.example';

/** A concrete path of a route pattern: each parameter (and a wildcard) an id-like value. */
const pathOf = (url: string) => url.replace(/:[A-Za-z_]+/g, 'cert_x1').replace(/\*$/, 'x');

const preflight = (url: string, method: string, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin: ORIGIN, 'access-control-request-method': method, ...headers },
  });

/** What every cross-origin-readable public answer carries. */
function expectOpen(res: { headers: Record<string, unknown> }) {
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  expect(String(res.headers['access-control-expose-headers'])).toMatch(
    /\bETag\b.*\bLink\b.*\bX-Request-Id\b/,
  );
}

/** What a browser on another origin is refused: no CORS header at all. */
function expectClosed(res: { headers: Record<string, unknown> }) {
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
  expect(res.headers['access-control-allow-methods']).toBeUndefined();
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

const verification = () => ({
  certificate: certificate(),
  checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
  verified: true,
  burned: false,
  verified_at: '2025-01-02T00:00:00.000Z',
});

describe('CORS on the public surface', () => {
  it('answers a preflight from another origin for every public endpoint (204, any origin, its methods, no credentials) and refuses it for every authenticated one', async () => {
    const entries = h.app.routeCatalog.filter((e) => e.endpoint);
    const open = entries.filter((e) => e.endpoint!.access?.auth === 'public');
    const closed = entries.filter((e) => e.endpoint!.access?.auth !== 'public');
    // The kinds the issue names are among the open ones.
    expect(open.map((e) => `${e.method} ${e.url}`)).toEqual(
      expect.arrayContaining([
        'GET /api/certificate/public/:id',
        'GET /api/certificate/metadata/:tokenId',
        'GET /api/certificate/verify/:id',
        'GET /verify/:id',
        'GET /verify/:id/qr.svg',
        'GET /verify/:id/qr.png',
      ]),
    );
    expect(closed.length).toBeGreaterThan(50);
    for (const e of open) {
      const res = await preflight(pathOf(e.url), e.method, {
        'access-control-request-headers': 'if-none-match',
      });
      expect({ route: `${e.method} ${e.url}`, status: res.statusCode }).toEqual({
        route: `${e.method} ${e.url}`,
        status: 204,
      });
      expectOpen(res);
      expect(String(res.headers['access-control-allow-methods']).split(', ')).toContain(e.method);
      expect(res.headers['access-control-allow-headers']).toContain('If-None-Match');
      expect(res.headers['access-control-allow-headers']).not.toMatch(/authorization|api-key/i);
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    }
    for (const e of closed) {
      const res = await preflight(pathOf(e.url), e.method, {
        'access-control-request-headers': 'authorization',
      });
      expect({ route: `${e.method} ${e.url}`, status: res.statusCode < 500 }).toEqual({
        route: `${e.method} ${e.url}`,
        status: true,
      });
      expectClosed(res);
    }
    expect(h.calls).toEqual([]);
  }, 60_000);

  it('lets a page on another origin read each public route kind: the public read, the metadata, the verification JSON, the page and its QR code (and their 404s)', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => certificate());
    h.answer('verification', 'getPublicCertificateByToken', async () => certificate());
    h.answer('verification', 'verifyCertificate', async () => verification());
    for (const url of [
      '/api/certificate/public/cert_1',
      '/api/certificate/metadata/7',
      '/api/certificate/verify/cert_1',
      '/verify/cert_1',
      '/verify/cert_1/qr.svg',
    ]) {
      const res = await h.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expectOpen(res);
    }
    h.reset();
    const { HallmarkError } = await import('@hallmark/kit');
    h.answer('verification', 'verifyCertificate', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const missing = await h.app.inject({
      method: 'GET',
      url: '/api/certificate/verify/cert_gone',
      headers: { origin: ORIGIN },
    });
    expect(missing.statusCode).toBe(404);
    expectOpen(missing); // the page can read why
  });

  it('sends an authenticated route’s answers (success or 401) without any CORS header, helmet’s same-origin policy kept', async () => {
    h.answer('vouchers', 'listVouchers', async () => ({
      vouchers: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
    }));
    const ok = await h.app.inject({
      method: 'GET',
      url: '/api/v1/vouchers',
      headers: { origin: ORIGIN, ...h.keyWith(['transactions.read']) },
    });
    expect(ok.statusCode).toBe(200);
    expectClosed(ok);
    expect(ok.headers['cross-origin-resource-policy']).toBe('same-origin');
    const anon = await h.app.inject({ method: 'GET', url: '/api/v1/vouchers', headers: { origin: ORIGIN } });
    expect(anon.statusCode).toBe(401);
    expectClosed(anon);
    const pre = await preflight('/api/v1/vouchers', 'GET', {
      'access-control-request-headers': 'authorization',
    });
    expect(pre.statusCode).toBe(405);
    expectClosed(pre);
  });

  it('answers a plain OPTIONS with Allow; preflights take no rate-limit point and stay out of the route catalogue and the OpenAPI document', async () => {
    const plain = await h.app.inject({ method: 'OPTIONS', url: '/api/certificate/verify/cert_1' });
    expect(plain.statusCode).toBe(204);
    expect(plain.headers.allow).toBe('GET, HEAD, OPTIONS');
    // A preflight for a method the URL does not serve publicly is refused.
    const post = await preflight('/api/certificate/verify/cert_1', 'POST');
    expect(post.statusCode).toBe(204);
    expectClosed(post);

    for (let i = 0; i < 5; i++) {
      const res = await preflight('/verify/cert_9', 'GET');
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    h.answer('verification', 'verifyCertificate', async () => verification());
    const page = await h.app.inject({ method: 'GET', url: '/verify/cert_9', headers: { origin: ORIGIN } });
    // The page's own group (verify_page, 60 a minute per client) counted this request alone
    // of this test's (earlier tests in this file used the same client's window).
    const before = Number(page.headers['x-ratelimit-remaining']);
    await preflight('/verify/cert_9', 'GET');
    const again = await h.app.inject({ method: 'GET', url: '/verify/cert_9', headers: { origin: ORIGIN } });
    expect(Number(again.headers['x-ratelimit-remaining'])).toBe(before - 1);

    expect(h.app.routeCatalog.filter((e) => e.method === 'OPTIONS')).toEqual([]);
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const methods = Object.values(doc.paths as Record<string, Record<string, unknown>>).flatMap((p) =>
      Object.keys(p),
    );
    expect(methods).not.toContain('options');
    expect(doc.paths['/api/certificate/verify/{id}'].get.operationId).toBe('getCertificateVerification');
  });
});
