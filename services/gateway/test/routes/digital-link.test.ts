// routes/digital-link/: the GS1 Digital Link resolver as a GS1-Conformant resolver answers
// (docs/digital-link.md › Conformance): GET redirects 307 to the verify page, `linkType=all` or
// `Accept: application/linkset+json` answers the RFC 9264 linkset, `linkType=gs1:<type>`
// redirects to that link or 404, every resolution carries the `Link` header, HEAD the same
// without a body, OPTIONS the methods; certificates' refusals map to 400 and 404 in the error
// envelope. The path parsing itself is certificates' (services/certificates/test/digital-link);
// here its answers are given, and the path it is sent is checked. Also: QR codes of a
// certificate with a GTIN and serial encode its Digital Link URI (decoded from the PNG).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import type { ResolveDigitalLinkResponse } from '@hallmark/proto/certificates/v1/verification';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { certificate } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

// jsqr is CommonJS typed as an ES module with a default export: the function is either.
const jsQR = ((jsQRModule as { default?: unknown }).default ?? jsQRModule) as typeof jsQRModule.default;

const BASE = 'https://hallmark.test';
const GTIN = '09506000134352';
const ITEM = `/01/${GTIN}/21/A%2F1`;
const DL = `${BASE}${ITEM}`;
const GS1 = 'https://gs1.org/voc/';

const resolved = (over: Partial<ResolveDigitalLinkResponse> = {}): ResolveDigitalLinkResponse => ({
  certificate_id: 'cert_1',
  livemode: true,
  gtin: GTIN,
  serial: 'A/1',
  digital_link_path: ITEM,
  ...over,
});
const answer = (over: Partial<ResolveDigitalLinkResponse> = {}) =>
  h.answer('verification', 'resolveDigitalLink', async () => resolved(over));
const refuse = (err: HallmarkError) =>
  h.answer('verification', 'resolveDigitalLink', async () => {
    throw err;
  });
const sentPaths = () =>
  h.callsTo('verification', 'resolveDigitalLink').map((c) => (c as { path: string }).path);

describe('GET /01/:gtin/21/:serial', () => {
  it('redirects 307 to the verify page by default, with one ResolveDigitalLink call given the path as sent', async () => {
    answer();
    const res = await h.app.inject({ method: 'GET', url: ITEM });
    expect(res.statusCode).toBe(307);
    expect(res.headers.location).toBe(`${BASE}/verify/cert_1`);
    expect(sentPaths()).toEqual([`${GTIN}/21/A%2F1`]);
    expect(h.calls).toHaveLength(1);
  });

  it('lists every link in the Link header: GS1 relations, the linkset and the canonical URI', async () => {
    answer({ passport_url: 'https://dpp.example/p/1' });
    const res = await h.app.inject({ method: 'GET', url: ITEM });
    const link = String(res.headers.link);
    expect(link).toContain(`<${BASE}/verify/cert_1>; rel="${GS1}defaultLink"`);
    expect(link).toContain(`<${BASE}/api/certificate/verify/cert_1>; rel="${GS1}verificationService"`);
    expect(link).toContain(`<${BASE}/api/certificate/cert_1/credential>; rel="${GS1}certificationInfo"`);
    expect(link).toContain(`<${BASE}/api/certificate/cert_1/proof>; rel="${GS1}certificationInfo"`);
    expect(link).toContain(`<https://dpp.example/p/1>; rel="${GS1}pip"`);
    expect(link).toContain(`<${DL}?linkType=all>; rel="linkset"; type="application/linkset+json"`);
    expect(link).toContain(`<${DL}>; rel="http://www.w3.org/2002/07/owl#sameAs"`);
  });

  it('answers the RFC 9264 linkset for linkType=all: anchor = the Digital Link URI, relations typed with the GS1 vocabulary', async () => {
    answer({ passport_url: 'https://dpp.example/p/1' });
    const res = await h.app.inject({ method: 'GET', url: `${ITEM}?linkType=all` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/linkset+json');
    expect(res.headers.link).toBeDefined();
    expect(res.json()).toEqual({
      linkset: [
        {
          anchor: DL,
          [`${GS1}defaultLink`]: [
            { href: `${BASE}/verify/cert_1`, title: expect.any(String), type: 'text/html' },
          ],
          [`${GS1}verificationService`]: [
            {
              href: `${BASE}/api/certificate/verify/cert_1`,
              title: expect.any(String),
              type: 'application/json',
            },
          ],
          [`${GS1}certificationInfo`]: [
            {
              href: `${BASE}/api/certificate/cert_1/credential`,
              title: expect.stringContaining('credential'),
            },
            {
              href: `${BASE}/api/certificate/cert_1/proof`,
              title: expect.stringContaining('Proof bundle'),
              type: 'application/json',
            },
          ],
          [`${GS1}pip`]: [{ href: 'https://dpp.example/p/1', title: 'Product passport', type: 'text/html' }],
        },
      ],
    });
  });

  it('answers the linkset for Accept: application/linkset+json (and linkType=linkset), without a passport link when there is none', async () => {
    answer();
    const byAccept = await h.app.inject({
      method: 'GET',
      url: ITEM,
      headers: { accept: 'application/linkset+json' },
    });
    expect(byAccept.statusCode).toBe(200);
    expect(byAccept.headers['content-type']).toBe('application/linkset+json');
    expect(byAccept.headers.vary).toContain('Accept');
    const set = byAccept.json().linkset[0];
    expect(set.anchor).toBe(DL);
    expect(set[`${GS1}pip`]).toBeUndefined();
    const byParam = await h.app.inject({ method: 'GET', url: `${ITEM}?linkType=linkset` });
    expect(byParam.json()).toEqual(byAccept.json());
  });

  it('redirects linkType=gs1:<type> (compact or full URI) to that link, and answers 404 when the item has none', async () => {
    answer();
    const compact = await h.app.inject({ method: 'GET', url: `${ITEM}?linkType=gs1:verificationService` });
    expect(compact.statusCode).toBe(307);
    expect(compact.headers.location).toBe(`${BASE}/api/certificate/verify/cert_1`);
    const full = await h.app.inject({
      method: 'GET',
      url: `${ITEM}?linkType=${encodeURIComponent(`${GS1}certificationInfo`)}`,
    });
    expect(full.headers.location).toBe(`${BASE}/api/certificate/cert_1/credential`);
    const missing = await h.app.inject({ method: 'GET', url: `${ITEM}?linkType=gs1:pip` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({
      code: 'resource_not_found',
      message: expect.stringContaining("no link of type 'gs1:pip'"),
    });
    answer({ passport_url: 'https://dpp.example/p/1' });
    const pip = await h.app.inject({ method: 'GET', url: `${ITEM}?linkType=gs1:pip` });
    expect(pip.headers.location).toBe('https://dpp.example/p/1');
  });

  it('ignores other query parameters (GS1 data attributes such as ?17=…)', async () => {
    answer();
    const res = await h.app.inject({ method: 'GET', url: `${ITEM}?17=261231&lang=fr` });
    expect(res.statusCode).toBe(307);
  });

  it('answers CORS on redirects and linksets (Access-Control-Allow-Origin: *, Link and Location exposed; the CORS branch gives every public endpoint the same)', async () => {
    answer();
    for (const url of [ITEM, `${ITEM}?linkType=all`]) {
      const res = await h.app.inject({ method: 'GET', url, headers: { origin: 'https://shop.example' } });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-expose-headers']).toContain('Link');
    }
  });
});

describe('HEAD /01/:gtin/21/:serial (Fastify’s, from GET)', () => {
  it('HEAD answers the same status and headers as GET, without a body', async () => {
    answer();
    const get = await h.app.inject({ method: 'GET', url: ITEM });
    const head = await h.app.inject({ method: 'HEAD', url: ITEM });
    expect(head.statusCode).toBe(307);
    expect(head.headers.location).toBe(get.headers.location);
    expect(head.headers.link).toBe(get.headers.link);
    expect(head.body).toBe('');
    const linkset = await h.app.inject({ method: 'HEAD', url: `${ITEM}?linkType=all` });
    expect(linkset.statusCode).toBe(200);
    expect(linkset.headers['content-type']).toBe('application/linkset+json');
    expect(linkset.body).toBe('');
  });
});

/** OPTIONS on `urls`: 204, the methods, CORS preflight headers, and no downstream call. */
async function expectOptions(urls: string[]) {
  for (const url of urls) {
    const res = await h.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    expect([url, res.statusCode]).toEqual([url, 204]);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
  }
  expect(h.calls).toEqual([]);
}

describe('preflight of /01/:gtin/21/:serial (the CORS plugin OPTIONS)', () => {
  it('answers 204 with the allowed methods and CORS preflight headers (also on qualifier paths), without a call', () =>
    expectOptions([ITEM, `/01/${GTIN}/10/LOT/21/S`, `${ITEM}/`]));
});

describe('preflight of /01/:gtin (the CORS plugin OPTIONS)', () => {
  it('answers 204 with the allowed methods and CORS preflight headers, without a call', () =>
    expectOptions([`/01/${GTIN}`]));
});

describe('GET /01/:gtin', () => {
  it('sends the GTIN to certificates and answers its 404 (no GTIN-level links) or its 400 (malformed GTIN)', async () => {
    refuse(new HallmarkError('resource_not_found', { message: 'Hallmark resolves certified items only.' }));
    const res = await h.app.inject({ method: 'GET', url: `/01/${GTIN}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toContain('certified items only');
    refuse(new HallmarkError('parameter_invalid', { param: 'gtin', message: 'wrong check digit' }));
    const bad = await h.app.inject({ method: 'GET', url: '/01/09506000134353' });
    expect(bad.statusCode).toBe(400);
    expect(sentPaths()).toEqual([GTIN, '09506000134353']);
  });
});

describe('refusals', () => {
  it("answers certificates' syntax refusals as 400 in the error envelope (bad check digit, serial characters, unknown AI)", async () => {
    const cases: [string, HallmarkError][] = [
      [
        '/01/09506000134353/21/A',
        new HallmarkError('parameter_invalid', {
          param: 'gtin',
          message: 'The GTIN has a wrong check digit.',
        }),
      ],
      [
        '/01/0950600013435X/21/A',
        new HallmarkError('parameter_invalid', { param: 'gtin', message: 'digits' }),
      ],
      [
        `/01/${GTIN}/21/a%20b`,
        new HallmarkError('parameter_invalid', { param: 'serial', message: 'CSET 82' }),
      ],
      [
        `/01/${GTIN}/99/x`,
        new HallmarkError('parameter_invalid', { param: 'path', message: 'not a qualifier' }),
      ],
    ];
    for (const [url, err] of cases) {
      refuse(err);
      const res = await h.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 400]);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.json().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param: err.param,
      });
    }
    expect(sentPaths()).toEqual([
      '09506000134353/21/A',
      '0950600013435X/21/A',
      `${GTIN}/21/a%20b`,
      `${GTIN}/99/x`,
    ]);
  });

  it('answers 404 for an unknown item and for a GTIN alone, and sends qualifier and trailing-slash paths whole to certificates', async () => {
    refuse(new HallmarkError('resource_not_found', { message: 'No certificate has GTIN … and serial …' }));
    for (const url of [`/01/${GTIN}/21/NOPE`, `/01/${GTIN}`, `/01/${GTIN}/`, `/01/${GTIN}/10/L1/21/S1/`]) {
      const res = await h.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 404]);
      expect(res.json().error.code).toBe('resource_not_found');
    }
    expect(sentPaths()).toEqual([`${GTIN}/21/NOPE`, GTIN, `${GTIN}/`, `${GTIN}/10/L1/21/S1/`]);
  });
});

describe('QR codes and the public read of a certificate with a GTIN and serial', () => {
  const withGtin = () => certificate({ gtin: GTIN, serial: 'A/1', digital_link_path: ITEM, id: 'cert_9' });

  const decodePng = (bytes: Buffer): string => {
    const png = PNG.sync.read(bytes);
    const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height, {
      inversionAttempts: 'dontInvert',
    });
    if (!code) throw new Error('no QR code found in the PNG');
    return code.data;
  };
  const answerBoth = () =>
    h.answer('certificates', 'getPublicCertificate', async (r) =>
      (r as { certificate_id: string }).certificate_id === 'cert_9'
        ? withGtin()
        : certificate({ id: 'cert_8' }),
    );

  it('encodes the Digital Link URI in the PNG QR code (decoded with jsQR)', async () => {
    answerBoth();
    const dl = await h.app.inject({ method: 'GET', url: '/verify/cert_9/qr.png' });
    expect(dl.statusCode).toBe(200);
    expect(decodePng(dl.rawPayload)).toBe(DL);
  }, 120_000);

  it('encodes the Digital Link URI in the SVG QR code, and the verify URL without a GTIN (the QR library’s own rendering of each payload)', async () => {
    answerBoth();
    const options = { errorCorrectionLevel: 'M', margin: 2, type: 'svg' } as const;
    const dl = await h.app.inject({ method: 'GET', url: '/verify/cert_9/qr.svg' });
    expect(dl.headers['content-type']).toContain('image/svg+xml');
    expect(dl.body).toBe(await QRCode.toString(DL, options));
    const plain = await h.app.inject({ method: 'GET', url: '/verify/cert_8/qr.svg' });
    expect(plain.body).toBe(await QRCode.toString(`${BASE}/verify/cert_8`, options));
    expect(plain.body).not.toBe(dl.body);
  });

  it('shows gtin, serial and digitalLink on the public read (null without them)', async () => {
    h.answer('certificates', 'getPublicCertificate', async (r) =>
      (r as { certificate_id: string }).certificate_id === 'cert_9'
        ? withGtin()
        : certificate({ id: 'cert_8' }),
    );
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_9' });
    expect(res.json()).toMatchObject({ gtin: GTIN, serial: 'A/1', digitalLink: DL });
    const plain = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_8' });
    expect(plain.json()).toMatchObject({ gtin: null, serial: null, digitalLink: null });
  });
});
