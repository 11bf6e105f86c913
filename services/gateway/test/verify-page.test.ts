// The verification page's rendering without a stack: escaping, warranty status and section,
// checks, and the ERC-721 token metadata JSON.
import { describe, expect, it } from '@jest/globals';
import type { Certificate } from '@hallmark/proto/certificates/v1/certificates';
import { escapeHtml, html, unsafeRaw } from '../src/pages/html.js';
import { explorerOf } from '../src/pages/explorers.js';
import { renderNotFoundPage, renderVerifyPage, warrantyStatus } from '../src/pages/verify.js';
import { tokenMetadata, verifyUrl } from '../src/routes/verify/pages.js';
import { presentVerification } from '../src/routes/verify/verification.js';
import type { VerifyCertificateResponse } from '@hallmark/proto/certificates/v1/verification';

/** The page renders the presented verification (what the open API answers), not the proto. */
const view = (v: Partial<VerifyCertificateResponse>) =>
  presentVerification(v as VerifyCertificateResponse, 'https://hallmark.test');

const certificate = (over: Partial<Certificate> = {}): Certificate => ({
  id: 'cert_abc',
  enterprise_id: 'ent_000000000000000000000001',
  token_id: 7,
  name: 'Lamp',
  image_url: 'https://img.test/l.png',
  metadata_json: JSON.stringify({
    name: 'Lamp',
    artist: 'Ada',
    tokenId: 7,
    warranty: {
      period: '2 years',
      type: 'Manufacturer',
      startDate: '2020-01-01',
      endDate: '2022-01-01',
      coverage: 'All <parts>',
      claimProcess: 'Mail us',
      contactInfo: 'a@b.test',
      termsUrl: 'javascript:alert(1)',
    },
  }),
  metadata_hash: '0x00',
  batch_id: 'batch_1',
  holder_address: '0x0000000000000000000000000000000000000001',
  status: 'minted',
  created_at: '2020-01-01T00:00:00.000Z',
  updated_at: '2020-01-01T00:00:00.000Z',
  provenance: [],
  livemode: true,
  ...over,
});

describe('html', () => {
  it('escapes interpolated values, nested arrays included, and keeps html-built markup', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;',
    );
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${[inner, '<u>', null, false, 0]}${unsafeRaw('<br>')}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>&lt;u&gt;0<br></p>',
    );
  });
});

describe('verification page', () => {
  it('derives the warranty status', () => {
    const now = new Date('2021-06-01');
    expect(warrantyStatus({ startDate: '2021-01-01', endDate: '2022-01-01' }, now)).toBe('active');
    expect(warrantyStatus({ startDate: '2021-07-01', endDate: '2022-01-01' }, now)).toBe('future');
    expect(warrantyStatus({ startDate: '2020-01-01', endDate: '2021-01-01' }, now)).toBe('expired');
    expect(warrantyStatus({}, now)).toBeNull();
    expect(warrantyStatus({ status: 'active', startDate: '2000-01-01', endDate: '2001-01-01' }, now)).toBe(
      'active',
    );
  });

  it('renders checks, the warranty (no unsafe link) and escapes data', () => {
    const page = renderVerifyPage(
      view({
        certificate: certificate({ name: '<img src=x onerror=alert(1)>' }),
        checks: [
          { name: 'record_found', passed: true, detail: 'ok' },
          { name: 'holder', passed: false, detail: 'owner is <evil>' },
        ],
        verified: false,
        burned: false,
        verified_at: '2021-06-01T00:00:00.000Z',
      }),
      '/verify/cert_abc/qr.svg',
    );
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toMatch(/data-check="holder"\s+data-passed="false"/);
    expect(page).toContain('owner is &lt;evil&gt;');
    expect(page).toContain('data-warranty-status="expired"');
    expect(page).toContain('All &lt;parts&gt;');
    expect(page).not.toContain('javascript:');
    expect(page).toContain('data-result="failed"');
    expect(renderNotFoundPage('<x>')).toContain('&lt;x&gt;');
  });

  it('offers "Download proof" (the proof bundle) only for a minted certificate', () => {
    const v = (over: Partial<Certificate>) =>
      renderVerifyPage(
        view({
          certificate: certificate(over),
          checks: [],
          verified: false,
          burned: false,
          verified_at: '2021-06-01T00:00:00.000Z',
        }),
        '/verify/cert_abc/qr.svg',
      );
    expect(v({})).toMatch(
      /<a id="download-proof" href="\/api\/certificate\/cert_abc\/proof" download\s*>Download proof</,
    );
    expect(v({ token_id: undefined, status: 'pending' })).not.toContain('download-proof');
  });

  it('a certificate reported stolen: a prominent banner first ("Reported stolen on <date>", what a buyer should do), the timeline names it', () => {
    const verified = {
      checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
      verified: true,
      burned: false,
      verified_at: '2026-05-04T00:00:00.000Z',
    };
    const page = renderVerifyPage(
      view({
        ...verified,
        certificate: certificate({
          stolen: { kind: 'stolen', reported_at: '2026-05-03T10:00:00.000Z', reported_by: 'owner' },
          provenance: [{ kind: 'reported_stolen', at: '2026-05-03T10:00:00.000Z' }],
        }),
      }),
      '/verify/cert_abc/qr.svg',
    );
    expect(page).toMatch(/<div class="banner stolen" id="stolen" role="alert" data-stolen="stolen">/);
    expect(page).toContain('Reported stolen on 2026-05-03');
    expect(page).toContain('Do not buy this item');
    // Before the "Genuine" banner: a buyer reads the warning first.
    expect(page.indexOf('id="stolen"')).toBeLessThan(page.indexOf('data-result="verified"'));
    expect(page).toContain('<strong>Reported stolen</strong>');
    const lost = renderVerifyPage(
      view({
        ...verified,
        certificate: certificate({
          stolen: { kind: 'lost', reported_at: '2026-05-03T10:00:00.000Z', reported_by: 'brand' },
        }),
      }),
      '/verify/cert_abc/qr.svg',
    );
    expect(lost).toContain('Reported lost on 2026-05-03');
    expect(renderVerifyPage(view({ ...verified, certificate: certificate() }), '/q.svg')).not.toContain(
      'id="stolen"',
    );
  });

  it('says plainly "Issuer not verified" when the enterprise has set no issuer profile', () => {
    const page = renderVerifyPage(
      view({
        certificate: certificate(),
        checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
        verified: true,
        burned: false,
        verified_at: '2021-06-01T00:00:00.000Z',
      }),
      '/verify/cert_abc/qr.svg',
      null,
    );
    const line = /<p class="issuer unverified" id="issuer" data-domain="none">([\s\S]*?)<\/p>/.exec(
      page,
    )?.[1];
    expect(line).toContain('<span class="badge warn">Issuer not verified</span>');
    expect(line).toContain('no Hallmark profile');
    expect(page).not.toContain('Issued by');
  });

  it('links to no explorer on a chain without one (the local anvil), to its own explorer on a public chain', () => {
    const TX = `0x${'ab'.repeat(32)}`;
    const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const render = (chainEnv: Parameters<typeof explorerOf>[0]) =>
      renderVerifyPage(
        view({
          certificate: certificate({ transaction_hash: TX }),
          checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
          verified: true,
          burned: false,
          verified_at: '2021-06-01T00:00:00.000Z',
          contract_address: CONTRACT,
        }),
        '/verify/cert_abc/qr.svg',
        null,
        explorerOf(chainEnv),
      );
    for (const local of [
      { HALLMARK_CHAIN_ID: 31337 },
      {},
      { HALLMARK_CHAIN_ID: 1, HALLMARK_CHAIN_EXPLORER_URL: '' },
    ]) {
      expect(explorerOf(local)).toBeNull();
      const tech = render(local).slice(render(local).indexOf('<details class="card tech"'));
      expect(tech).toContain(`<code title="${TX}">`);
      expect(tech).not.toContain('href=');
    }
    expect(render({ HALLMARK_CHAIN_ID: 1 })).toContain(`href="https://etherscan.io/tx/${TX}"`);
    expect(render({ HALLMARK_CHAIN_ID: 137 })).toContain(
      `href="https://polygonscan.com/address/${CONTRACT}"`,
    );
    expect(
      explorerOf({ HALLMARK_CHAIN_ID: 31337, HALLMARK_CHAIN_EXPLORER_URL: 'https://scan.internal/' }),
    ).toEqual({
      tx: 'https://scan.internal/tx/{hash}',
      address: 'https://scan.internal/address/{address}',
    });
  });

  it('shows attributes as a table a person reads (labels, lists, no JSON) and the proof folded under technical details with explorer links', () => {
    const TX = `0x${'ab'.repeat(32)}`;
    const ROOT = `0x${'cd'.repeat(32)}`;
    const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const page = renderVerifyPage(
      view({
        certificate: certificate({
          metadata_json: JSON.stringify({
            name: 'Lamp',
            serialNumber: 'SN-1',
            sku: 'L-7',
            dimensions: { height: '30 cm', madeIn: 'Italy' },
            materials: ['brass', 'glass'],
            signed: true,
          }),
          transaction_hash: TX,
          block_number: 12,
          provenance: [
            {
              kind: 'minted',
              at: '2020-01-01T00:00:00.000Z',
              to: CONTRACT,
              transaction_hash: TX,
              block_number: 12,
            },
          ],
        }),
        checks: [{ name: 'record_found', passed: true, detail: 'ok' }],
        verified: true,
        burned: false,
        verified_at: '2021-06-01T00:00:00.000Z',
        merkle_root: ROOT,
        contract_address: CONTRACT,
      }),
      '/verify/cert_abc/qr.svg',
      null,
      { tx: 'https://explorer.test/tx/{hash}', address: 'https://explorer.test/address/{address}' },
    );
    const table = page.slice(page.indexOf('<table class="attrs"'), page.indexOf('</table>'));
    expect(table).toMatch(/<th scope="row">Serial number<\/th>\s*<td>SN-1<\/td>/);
    expect(table).toMatch(/<th scope="row">SKU<\/th>/);
    expect(table).toContain('<li>Height: 30 cm</li>');
    expect(table).toContain('<li>Made in: Italy</li>');
    expect(table).toContain('<li>brass</li>');
    expect(table).toMatch(/<th scope="row">Signed<\/th>\s*<td>Yes<\/td>/);
    expect(page).not.toMatch(/[{[]&quot;/);
    // The proof is folded (a <details> without `open`) and links to the explorer.
    const tech = page.slice(page.indexOf('<details class="card tech"'), page.indexOf('</details>'));
    expect(tech).toContain('<summary>Technical details</summary>');
    expect(tech).toContain(`title="${ROOT}"`);
    expect(tech).toContain(`href="https://explorer.test/tx/${TX}"`);
    expect(tech).toContain(`href="https://explorer.test/address/${CONTRACT}"`);
    expect(page).not.toMatch(/<details[^>]*\bopen\b/);
    // Nothing technical leads the page: the first hash appears inside the details.
    expect(page.indexOf(TX)).toBeGreaterThan(page.indexOf('<details'));
  });

  it('every page has a description, an inline icon and stays out of search engines unless the issuer opts in', () => {
    const v = {
      certificate: certificate(),
      checks: [],
      verified: true,
      burned: false,
      verified_at: '2021-06-01T00:00:00.000Z',
    };
    const issuer = {
      name: 'Maison <Test>',
      website: 'https://brand.test/',
      host: 'brand.test',
      domainVerified: true,
      logo: { path: `/media/${'e'.repeat(64)}`, width: 240, height: 80 },
      indexable: false,
    };
    const closed = renderVerifyPage(view(v), '/qr.svg', issuer);
    expect(closed).toContain('<meta name="robots" content="noindex" />');
    expect(closed).toMatch(
      /<meta name="description" content="Lamp: a certificate of authenticity issued by Maison &lt;Test&gt;[^"]*"/,
    );
    expect(closed).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
    expect(closed).toMatch(
      new RegExp(
        `<img[^>]*id="issuer-logo"[^>]*src="/media/${'e'.repeat(64)}"[^>]*width="120"[^>]*height="40"`,
        's',
      ),
    );
    const open = renderVerifyPage(view(v), '/qr.svg', { ...issuer, indexable: true });
    expect(open).toContain('<meta name="robots" content="index, follow" />');
    expect(renderNotFoundPage('x')).toContain('content="noindex"');
  });

  it('token metadata JSON names an open lost/stolen report as the attribute `reported`, and only while open', () => {
    const flagged = certificate({
      stolen: { kind: 'stolen', reported_at: '2026-05-03T10:00:00.000Z', reported_by: 'brand' },
    });
    expect(tokenMetadata(flagged, 'https://h.test').attributes).toContainEqual({
      trait_type: 'reported',
      value: 'stolen',
    });
    expect(
      tokenMetadata(certificate(), 'https://h.test').attributes.find((a) => a.trait_type === 'reported'),
    ).toBeUndefined();
  });

  it('token metadata JSON follows ERC-721 and links to the page', () => {
    expect(verifyUrl('https://h.test/', 'cert_abc')).toBe('https://h.test/verify/cert_abc');
    expect(tokenMetadata(certificate(), 'https://h.test')).toEqual({
      name: 'Lamp',
      description: 'Hallmark certificate cert_abc',
      image: 'https://img.test/l.png',
      external_url: 'https://h.test/verify/cert_abc',
      attributes: [
        { trait_type: 'artist', value: 'Ada' },
        { trait_type: 'warranty', value: 'expired' },
        { trait_type: 'certificate', value: 'cert_abc' },
      ],
    });
  });
});
