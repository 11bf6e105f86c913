// routes/verify/: the verification page, its QR codes and the token metadata. Pages are sent
// through the one shell (pages/shell.ts): HTML, the page CSP, never cached.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificate } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const expectPage = (res: { headers: Record<string, unknown> }) => {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['cache-control']).toBe('no-store');
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
    expectPage(res);
    expect(res.body).toContain('Lamp');
    expect(h.callsTo('verification', 'verifyCertificate')[0]).toMatchObject({ certificate_id: 'cert_1' });
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
