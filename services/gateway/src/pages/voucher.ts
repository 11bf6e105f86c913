// The public view page of a certificate voucher (`/vouchers/:id`): server-rendered, no
// JavaScript, one small inline stylesheet, mobile first, sent through the shared page shell
// (`shell.ts`). Every value is escaped by `html`. It shows the certificate the voucher refers to,
// the voucher's status, expiry and reference number, and how its recipient claims it.
import type { VoucherView } from '@hallmark/proto/certificates/v1/vouchers';
import { attributeLabel, attributeValue, imageEntry } from './attributes.js';
import { describedIssuer, renderIssuer, type IssuerView } from './issuer.js';
import { html, unsafeRaw, type Html } from './html.js';
import { photoImg } from './photo.js';
import { pageKind, unavailableBanner } from './shell.js';

const STYLE = unsafeRaw(`
.banner.available{background:#e3f6e8;color:#0f5a26}
.banner.claimed{background:#e7effc;color:#1d4ea3}
.banner.expired{background:#fde8e8;color:#8a1414}
dd ul{margin:0;padding-left:1.1rem}
.ref{font:600 1.15rem ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.05em}
code,pre{font:.85rem ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere;white-space:pre-wrap}
pre{background:#f4f5f7;border-radius:8px;padding:.6rem;margin:.5rem 0}
`);

const page = pageKind({
  heading: 'Hallmark · Certificate voucher',
  footer: 'Certificates are recorded on a public blockchain by Hallmark.',
  style: STYLE,
});

function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
        .replace(/:\d\d UTC$/, ' UTC');
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseObject(json: string | undefined): Record<string, unknown> {
  try {
    const v = JSON.parse(json ?? '{}') as unknown;
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

export interface VoucherPageLinks {
  /** The certificate's verification page. */
  verify: string;
  /** The claim endpoint (absolute URL). */
  claim: string;
}

function banner(status: string, expiresAt: string, claimedAt: string | undefined, voidReason?: string): Html {
  if (status === 'voided') {
    // The order this voucher was issued for was cancelled (platform orders/cancelled).
    return html`<div class="banner expired" id="status" data-status="voided">
      This voucher has been voided<small
        >${voidReason || 'The order it was issued for was cancelled.'} It can no longer be claimed.</small
      >
    </div>`;
  }
  if (status === 'claimed') {
    return html`<div class="banner claimed" id="status" data-status="claimed">
      This voucher has been
      claimed${claimedAt ? html`<small>Claimed ${formatDate(claimedAt)}.</small>` : null}
    </div>`;
  }
  if (status === 'unavailable') {
    // Its certificate is in another pending hand-over (a gift or transfer) or no longer with
    // the issuer: a claim would be refused, so the page never says it is waiting.
    return html`<div class="banner expired" id="status" data-status="unavailable">
      This voucher cannot be claimed<small
        >Its certificate is no longer available for it: it is being handed over another way, or has
        moved.</small
      >
    </div>`;
  }
  if (status === 'expired') {
    return html`<div class="banner expired" id="status" data-status="expired">
      This voucher has expired<small
        >It expired on ${formatDate(expiresAt)} and can no longer be claimed.</small
      >
    </div>`;
  }
  return html`<div class="banner available" id="status" data-status="available">
    This certificate is waiting for its owner<small>Claim it before ${formatDate(expiresAt)}.</small>
  </div>`;
}

function claimSection(
  v: NonNullable<VoucherView['voucher']>,
  minted: boolean,
  links: VoucherPageLinks,
): Html {
  if (v.status !== 'available') return html``;
  return html`<section class="card" id="claim">
    <h2>How to claim</h2>
    ${
      minted
        ? null
        : html`<p>The certificate is still being recorded on the blockchain; you can claim it shortly.</p>`
    }
    <ol>
      <li>Sign in to Hallmark (the voucher may be meant for one e-mail address: use that one).</li>
      <li>
        Claim it with your session; the certificate then moves to your own Hallmark wallet:
        <pre>
POST ${links.claim}
Authorization: Bearer &lt;your session token&gt;</pre>
      </li>
    </ol>
    <p>Keep the reference number <strong>${v.reference_number}</strong> to find this voucher again.</p>
  </section>`;
}

/** The page of a known voucher. */
export function renderVoucherPage(
  view: VoucherView,
  links: VoucherPageLinks,
  issuer: IssuerView | null = null,
): string {
  const v = view.voucher!;
  const certificate = parseObject(view.certificate_json);
  const metadata = isRecord(certificate.metadata) ? certificate.metadata : {};
  const name = typeof certificate.name === 'string' ? certificate.name : 'Certificate';
  const imageUrl = typeof certificate.imageUrl === 'string' ? certificate.imageUrl : null;
  const image = imageUrl && /^https?:\/\//i.test(imageUrl) ? imageUrl : null;
  const minted = certificate.status === 'minted';
  // name is the heading, tokenId the Token row; the warranty is on the verification page.
  const fields = [
    ...Object.entries(metadata).filter(([k]) => !['name', 'tokenId', 'warranty'].includes(k)),
    ...Object.entries(parseObject(v.metadata_json)).filter(([k]) => !(k in metadata)),
  ].filter(([, val]) => val !== null && val !== undefined && val !== '');

  const body = html`${banner(v.status, v.expires_at, v.claimed_at, v.void_reason)}
    <section class="card">
      ${image ? photoImg(image, name) : null}
      <h1 id="name">${name}</h1>
      ${renderIssuer(issuer)}
      <dl>
        ${fields.map(
          ([k, val]) =>
            html`<dt>${attributeLabel(k)}</dt>
              <dd>${k === 'image' && typeof val === 'object' ? imageEntry(val) : attributeValue(val)}</dd>`,
        )}
        <dt>Reference number</dt>
        <dd class="ref" id="reference">${v.reference_number}</dd>
        <dt>Status</dt>
        <dd id="voucher-status">${v.status}</dd>
        <dt>${v.status === 'expired' ? 'Expired' : 'Expires'}</dt>
        <dd id="expires">${formatDate(v.expires_at)}</dd>
        <dt>Certificate</dt>
        <dd><a id="verify" href="${links.verify}">${v.certificate_id}</a></dd>
        ${
          v.token_id !== undefined
            ? html`<dt>Token</dt>
                <dd>#${v.token_id}</dd>`
            : html`<dt>Token</dt>
                <dd>being minted</dd>`
        }
      </dl>
    </section>
    ${claimSection(v, minted, links)}
    <section class="card">
      <p>
        Anyone can check this certificate against the blockchain on its
        <a href="${links.verify}">verification page</a>.
      </p>
    </section>`;
  return page(`${name} · Hallmark voucher`, body, {
    // "Waiting for its owner" only while that is true (link previews read this too).
    description: `${name}: a certificate of authenticity${describedIssuer(issuer) ? ` from ${describedIssuer(issuer)}` : ''}${v.status === 'available' ? ' waiting for its owner,' : ''} recorded on a public blockchain by Hallmark.`,
  });
}

/** The friendly page of an unknown voucher (status 404). */
export function renderVoucherNotFoundPage(id: string): string {
  return page(
    'Voucher not found · Hallmark',
    html`<div class="banner bad" id="status" data-status="not_found">
        Voucher not found<small>Hallmark has no voucher <code>${id}</code>.</small>
      </div>
      <section class="card">
        <p>Check that you typed the link or the reference number exactly (it looks like HM-XXXX-XXXX-X).</p>
      </section>`,
  );
}

/** The page shown when the voucher could not be read (an outage). */
export function renderVoucherUnavailablePage(): string {
  return page('Voucher unavailable · Hallmark', unavailableBanner('voucher'));
}
