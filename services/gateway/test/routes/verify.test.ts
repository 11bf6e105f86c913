// routes/verify/: the verification page, its QR codes and the token metadata. Pages are sent
// through the one shell (pages/shell.ts): HTML, the page CSP; the verification page itself
// from the public cache (ETag, 304, a short public Cache-Control), the others never cached.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificate } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const CACHED = 'public, max-age=5, stale-while-revalidate=30';

const expectPage = (res: { headers: Record<string, unknown> }, cacheControl = 'no-store') => {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['cache-control']).toBe(cacheControl);
  expect(res.headers['referrer-policy']).toBe('no-referrer');
};

const verified = () => ({
  certificate: certificate(),
  checks: [{ name: 'record_found', passed: true, detail: '' }],
  verified: true,
  burned: false,
  verified_at: '2025-01-02T00:00:00.000Z',
  token_id: 7,
});

describe('GET /verify/:id', () => {
  it('renders the verification page of a certificate, without a credential', async () => {
    h.answer('verification', 'verifyCertificate', async () => verified());
    const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(res.statusCode).toBe(200);
    expectPage(res, CACHED);
    expect(res.body).toContain('Lamp');
    expect(h.callsTo('verification', 'verifyCertificate')[0]).toMatchObject({ certificate_id: 'cert_1' });
  });

  it("serves repeated views from the cache (one verification, the viewer's event recorded once) with a strong ETag and 304", async () => {
    h.answer('verification', 'verifyCertificate', async () => verified());
    const first = await h.app.inject({ method: 'GET', url: '/verify/cert_3' });
    const second = await h.app.inject({ method: 'GET', url: '/verify/cert_3' });
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    const calls = h.callsTo('verification', 'verifyCertificate');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ certificate_id: 'cert_3', record_event: true });
    const notModified = await h.app.inject({
      method: 'GET',
      url: '/verify/cert_3',
      headers: { 'if-none-match': `W/"x", ${first.headers.etag}` },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(first.headers.etag);
    expect(notModified.headers['cache-control']).toBe(CACHED);
    h.app.publicCache.invalidate('cert_3');
    await h.app.inject({ method: 'GET', url: '/verify/cert_3' });
    expect(h.callsTo('verification', 'verifyCertificate')).toHaveLength(2);
  });

  it('says "Issued by <brand>" with the domain marked verified when the enterprise has a profile (one call: certificates answers the issuer with the certificate)', async () => {
    const withIssuer = (domain_verified: boolean | null) => ({
      ...verified(),
      certificate: {
        ...certificate(),
        ...(domain_verified === null
          ? {}
          : {
              issuer: {
                display_name: 'Maison <Test>',
                website: 'https://brand.example/',
                domain_verified,
                logo_width: 0,
                logo_height: 0,
                indexable: false,
              },
            }),
      },
    });
    h.answer('verification', 'verifyCertificate', async () => withIssuer(true));
    h.app.publicCache.invalidate('cert_1'); // the page is cached; each profile state is a fresh fill
    const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(res.body).toContain('Issued by <strong>Maison &lt;Test&gt;</strong>');
    expect(res.body).toContain('data-domain="verified"');
    expect(h.callsTo('keys', 'getPublicEnterpriseProfile')).toEqual([]);
    h.answer('verification', 'verifyCertificate', async () => withIssuer(false));
    h.app.publicCache.invalidate('cert_1');
    const unverified = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(unverified.body).toContain('data-domain="unverified"');
    h.answer('verification', 'verifyCertificate', async () => withIssuer(null));
    h.app.publicCache.invalidate('cert_1');
    const none = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(none.statusCode).toBe(200);
    expect(none.body).not.toContain('Issued by');
  });

  it('shows an issuer whose domain is not verified plainly, labelled "Issuer not verified": no bold name, no logo, no "Issued by", not in the description', async () => {
    h.answer('verification', 'verifyCertificate', async () => ({
      ...verified(),
      certificate: {
        ...certificate(),
        issuer: {
          display_name: 'Maison <Test>',
          website: 'https://brand.example/',
          domain_verified: false,
          logo_sha256: 'e'.repeat(64),
          logo_width: 120,
          logo_height: 40,
          indexable: false,
        },
      },
    }));
    h.app.publicCache.invalidate('cert_1');
    const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    const line = /<p class="issuer unverified" id="issuer"[^>]*>([\s\S]*?)<\/p>/.exec(res.body)?.[1] ?? '';
    expect(line).toContain('Issuer not verified');
    expect(line.replace(/\s+/g, ' ')).toContain(
      'Claimed by <span class="claimed-name">Maison &lt;Test&gt;</span> — brand.example does not confirm it.',
    );
    expect(line).not.toMatch(/<strong|<b>|font-weight:\s*(bold|[6-9]00)/);
    expect(res.body).not.toContain('Issued by');
    expect(res.body).not.toContain('id="issuer-logo"');
    expect(res.body).not.toMatch(/<meta name="description" content="[^"]*Maison/);
    expect(res.body).toMatch(/\.issuer\.unverified \.claimed-name\{font-weight:400\}/);
  });

  it("shows Hallmark's copy of the image, sized, with the anchored hash's fingerprint and the image check", async () => {
    const sha = 'ab'.repeat(32);
    h.answer('verification', 'verifyCertificate', async () => ({
      ...verified(),
      checks: [{ name: 'image', passed: true, detail: 'The image matches the hash anchored on chain.' }],
      image: {
        url: `https://hallmark.test/media/${sha}`,
        sha256: sha,
        width: 1600,
        height: 900,
        state: 'archived',
      },
    }));
    h.app.publicCache.invalidate('cert_1'); // the page is cached: each answer is a fresh fill
    const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(res.body).toContain(`src="https://hallmark.test/media/${sha}?w=480"`);
    expect(res.body).toContain('width="480"');
    expect(res.body).toContain('height="270"');
    expect(res.body).toContain('Image matches the hash anchored on chain');
    expect(res.body).toContain('abababab…abababab');
  });

  it('says "image changed since issue" or "original image no longer available" instead of showing a wrong or broken picture', async () => {
    for (const [state, text] of [
      ['changed', 'Image changed since issue'],
      ['unavailable', 'Original image no longer available'],
    ] as const) {
      h.answer('verification', 'verifyCertificate', async () => ({
        ...verified(),
        verified: false,
        checks: [{ name: 'image', passed: false, detail: text }],
        image: { url: 'https://shop.test/a.png', sha256: 'cd'.repeat(32), width: 0, height: 0, state },
      }));
      h.app.publicCache.invalidate('cert_1'); // the page is cached: each answer is a fresh fill
      const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
      expect(res.body).toContain(`data-state="${state}"`);
      expect(res.body).toContain(text);
      expect(res.body).not.toContain('https://shop.test/a.png');
    }
  });

  it('is a 404 page for a malformed id (no call) and for an unknown certificate', async () => {
    const malformed = await h.app.inject({ method: 'GET', url: '/verify/nope' });
    expect(malformed.statusCode).toBe(404);
    expectPage(malformed);
    expect(h.calls).toEqual([]);
    h.answer('verification', 'verifyCertificate', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const unknown = await h.app.inject({ method: 'GET', url: '/verify/cert_2' });
    expect(unknown.statusCode).toBe(404);
    expectPage(unknown);
  });

  it('is a 503 page, never a stack or JSON, when verification fails', async () => {
    h.answer('verification', 'verifyCertificate', async () => {
      throw new HallmarkError('service_unavailable');
    });
    const res = await h.app.inject({ method: 'GET', url: '/verify/cert_1' });
    expect(res.statusCode).toBe(503);
    expectPage(res);
  });
});

function qrCodeOf(format: 'svg' | 'png', type: string) {
  it(`answers the QR code of a known certificate as ${type}`, async () => {
    h.answer('certificates', 'getPublicCertificate', async () => certificate());
    const res = await h.app.inject({ method: 'GET', url: `/verify/cert_1/qr.${format}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain(type);
    expect(res.rawPayload.length).toBeGreaterThan(100);
  });

  it('is 404 in the error envelope for an unknown or malformed certificate', async () => {
    const malformed = await h.app.inject({ method: 'GET', url: `/verify/nope/qr.${format}` });
    expect(malformed.statusCode).toBe(404);
    expect(h.calls).toEqual([]);
    h.answer('certificates', 'getPublicCertificate', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const unknown = await h.app.inject({ method: 'GET', url: `/verify/cert_2/qr.${format}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ code: 'resource_not_found' });
  });
}

describe('GET /verify/:id/qr.svg', () => qrCodeOf('svg', 'image/svg+xml'));
describe('GET /verify/:id/qr.png', () => qrCodeOf('png', 'image/png'));

describe('GET /api/certificate/metadata/:tokenId', () => {
  it('answers the ERC-721 metadata of a token', async () => {
    h.answer('verification', 'getPublicCertificateByToken', async () => certificate());
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/7' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Lamp', external_url: 'https://hallmark.test/verify/cert_1' });
    expect(h.callsTo('verification', 'getPublicCertificateByToken')).toEqual([{ token_id: 7 }]);
  });

  it('answers from the cache until the certificate changes (dropped by its id or its token)', async () => {
    h.answer('verification', 'getPublicCertificateByToken', async () => certificate());
    const first = await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/7' });
    await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/7' });
    expect(h.callsTo('verification', 'getPublicCertificateByToken')).toHaveLength(1);
    expect(first.headers['cache-control']).toBe('public, max-age=5, stale-while-revalidate=30');
    const again = await h.app.inject({
      method: 'GET',
      url: '/api/certificate/metadata/7',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    h.app.publicCache.invalidate('cert_1');
    await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/7' });
    h.app.publicCache.invalidate('cert_other', 7);
    await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/7' });
    expect(h.callsTo('verification', 'getPublicCertificateByToken')).toHaveLength(3);
  });

  it('is 404 for a token id that is not a decimal (no call) and for an unknown token', async () => {
    const bad = await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/0x7' });
    expect(bad.statusCode).toBe(404);
    expect(h.calls).toEqual([]);
    h.answer('verification', 'getPublicCertificateByToken', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const unknown = await h.app.inject({ method: 'GET', url: '/api/certificate/metadata/8' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, code: 'resource_not_found' });
  });
});
