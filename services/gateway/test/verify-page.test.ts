// The verification page's rendering without a stack: escaping, warranty status and section,
// checks, and the ERC-721 token metadata JSON.
import { describe, expect, it } from '@jest/globals';
import type { Certificate } from '@hallmark/proto/certificates/v1/certificates';
import { escapeHtml, html, unsafeRaw } from '../src/pages/html.js';
import { renderNotFoundPage, renderVerifyPage, warrantyStatus } from '../src/pages/verify.js';
import { tokenMetadata, verifyUrl } from '../src/routes/verify/pages.js';

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
      {
        certificate: certificate({ name: '<img src=x onerror=alert(1)>' }),
        checks: [
          { name: 'record_found', passed: true, detail: 'ok' },
          { name: 'holder', passed: false, detail: 'owner is <evil>' },
        ],
        verified: false,
        burned: false,
        verified_at: '2021-06-01T00:00:00.000Z',
      },
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
