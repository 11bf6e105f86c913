// The public verification page (`/verify/:id`): server-rendered, no JavaScript, one small
// inline stylesheet, mobile first. Every value from the certificate is escaped by `html`. It is
// rendered from the presented verification (routes/verify/verification.ts), the object the
// open verification API answers as JSON, so the page and the API cannot say different things.
import type { Verification } from '../routes/verify/verification.js';
import { describedIssuer, renderIssuer, type IssuerView } from './issuer.js';
import { PROVENANCE_LABELS, technicalDetails, type Explorer } from './technical.js';
import { attributeLabel, attributeValue, fingerprint, imageEntry } from './attributes.js';
import { html, unsafeRaw, type Html } from './html.js';
import { photoImg } from './photo.js';
import { pageKind } from './shell.js';
import { STOLEN_STYLE, stolenBanner } from './stolen.js';

const CHECK_LABELS: Record<string, string> = {
  record_found: 'Record found',
  on_chain: 'Token on the blockchain',
  holder: 'Holder matches',
  metadata: 'Metadata proven on chain',
  not_burned: 'Not burned',
  image: 'Image matches the hash anchored on chain',
};

const STYLE = unsafeRaw(`
.banner.ok{background:#e3f6e8;color:#0f5a26}
.banner.burned{background:#2b2b2b;color:#fff}
.image-notice{padding:1rem;border-radius:8px;background:#fff4e5;color:#6b3d00;font-weight:600}
.fingerprint-line{margin:.4rem 0 0;font-size:.85rem;color:#444}
table.attrs{width:100%;border-collapse:collapse;margin:.5rem 0 0}
.attrs th,.attrs td{text-align:left;vertical-align:top;padding:.35rem .5rem .35rem 0;border-top:1px solid #eee;overflow-wrap:anywhere}
.attrs th{font-weight:400;color:#595959;width:38%}
.attrs tr:first-child th,.attrs tr:first-child td{border-top:0}
.attrs ul{margin:0;padding-left:1.1rem}
details.tech summary{cursor:pointer;font-weight:600}
details.tech dl{margin-top:.75rem}
details.tech code{font-size:.8rem}
ul.checks,ol.timeline{list-style:none;margin:0;padding:0}
.checks li{padding:.5rem 0;border-top:1px solid #eee}
.checks li:first-child{border-top:0}
.checks .mark{display:inline-block;width:1.5rem;font-weight:700}
.checks .pass .mark{color:#137a35}
.checks .fail .mark{color:#b3261e}
.checks .why{display:block;color:#555;font-size:.9rem;margin-left:1.5rem;overflow-wrap:anywhere}
.timeline li{border-left:3px solid #c9ced6;padding:0 0 .75rem .75rem;margin-left:.3rem}
.timeline .when{color:#666;font-size:.85rem}
.timeline .refs{color:#555;font-size:.85rem;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:999px;padding:.05rem .6rem;font-size:.85rem;font-weight:600}
.badge.active{background:#e3f6e8;color:#0f5a26}
.badge.future{background:#e7effc;color:#1d4ea3}
.badge.expired{background:#eee;color:#555}
.qr{text-align:center}
.proof{margin:.75rem 0 0}
.proof a{font-weight:600}
.proof .why{display:block;color:#555;font-size:.9rem}
h3{font-size:.95rem;margin:1rem 0 .5rem}
.qr img{width:10rem;height:10rem}
`);

const page = pageKind({
  heading: 'Hallmark · Certificate verification',
  footer: 'Checked against the blockchain record by Hallmark.',
  style: html`${STYLE}${STOLEN_STYLE}`,
});

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}

export type WarrantyStatus = 'active' | 'expired' | 'future';

/**
 * The spec's derived warranty status: the one the service derived when present, else before
 * startDate future, after endDate expired, active in between.
 */
export function warrantyStatus(w: Record<string, unknown>, now = new Date()): WarrantyStatus | null {
  if (w.status === 'active' || w.status === 'expired' || w.status === 'future') return w.status;
  const start = typeof w.startDate === 'string' ? new Date(w.startDate) : null;
  const end = typeof w.endDate === 'string' ? new Date(w.endDate) : null;
  if (!start || Number.isNaN(start.getTime())) return null;
  if (now < start) return 'future';
  if (end && !Number.isNaN(end.getTime()) && now > end) return 'expired';
  return 'active';
}

const WARRANTY_FIELDS: [string, string][] = [
  ['period', 'Period'],
  ['type', 'Type'],
  ['startDate', 'Starts'],
  ['endDate', 'Ends'],
  ['coverage', 'Coverage'],
  ['exclusions', 'Exclusions'],
  ['claimProcess', 'How to claim'],
  ['contactInfo', 'Contact'],
];

function warrantySection(w: Record<string, unknown>): Html {
  const status = warrantyStatus(w);
  const terms = typeof w.termsUrl === 'string' && /^https?:\/\//i.test(w.termsUrl) ? w.termsUrl : null;
  return html`<section class="card" id="warranty">
    <h2>
      Warranty
      ${status ? html`<span class="badge ${status}" data-warranty-status="${status}">${status}</span>` : null}
    </h2>
    <dl>
      ${WARRANTY_FIELDS.filter(([k]) => w[k] !== undefined && w[k] !== null && w[k] !== '').map(
        ([k, label]) =>
          html`<dt>${label}</dt>
            <dd>
              ${k === 'period' && typeof w[k] === 'number' ? `${w[k]} year${w[k] === 1 ? '' : 's'}` : formatValue(w[k])}
            </dd>`,
      )}${
        terms
          ? html`<dt>Terms</dt>
              <dd><a href="${terms}" rel="nofollow noopener">${terms}</a></dd>`
          : null
      }
    </dl>
  </section>`;
}

/** A provenance entry as the timeline shows it: what happened and when. */
function provenanceItem(p: Verification['provenance'][number]): Html {
  return html`<li data-kind="${p.kind}">
    <strong>${PROVENANCE_LABELS[p.kind] ?? p.kind}</strong> <span class="when">${formatDate(p.at)}</span>
  </li>`;
}

/**
 * The certificate's picture: Hallmark's archived copy as a small WebP for phones (a larger one
 * for wide screens) with its size, so the page does not jump; a notice instead of a broken or
 * wrong picture when the original is gone or changed; the hash as a short fingerprint.
 */
function photo(vi: Verification['image'], src: string | null, name: string): Html | null {
  // No archive record (a certificate without a recorded hash): the picture as it is, sized.
  if (!vi) return src ? photoImg(src, name) : null;
  const print = html`<p class="fingerprint-line">
    Image SHA-256 <code class="fingerprint" title="${vi.sha256}">${fingerprint(vi.sha256)}</code>
  </p>`;
  if (vi.state === 'changed' || vi.state === 'unavailable')
    return html`<p class="image-notice" id="image-state" data-state="${vi.state}">
        ${vi.state === 'changed' ? 'Image changed since issue' : 'Original image no longer available'}
      </p>
      ${print}`;
  const sized = vi.width > 0 && vi.height > 0;
  const w = sized ? Math.min(vi.width, 480) : 480;
  const h = sized ? Math.round((vi.height * w) / vi.width) : 360;
  const img =
    vi.state === 'archived'
      ? html`<img
          class="photo"
          id="photo"
          src="${src}?w=480"
          srcset="${src}?w=480 480w, ${src}?w=1024 1024w"
          sizes="(max-width: 40rem) 100vw, 40rem"
          width="${w}"
          height="${h}"
          alt="${name}"
          data-sha256="${vi.sha256}"
        />`
      : html`<img
          class="photo"
          id="photo"
          src="${src}"
          width="${w}"
          height="${h}"
          alt="${name}"
          referrerpolicy="no-referrer"
        />`;
  return html`${img}${print}`;
}

/**
 * The verification page of a known certificate, from its presented verification. `qrPath` is
 * the page's QR code image; `issuer` the issuer line's profile (with its logo) from the same
 * call; `lead` goes above the verification banner (a tag tap's outcome, pages/tap.ts).
 */
export function renderVerifyPage(
  v: Verification,
  qrPath: string,
  issuer: IssuerView | null = null,
  explorer: Explorer | null = null,
  lead: Html | null = null,
): string {
  const c = v;
  const metadata = v.metadata;
  const warranty =
    metadata.warranty && typeof metadata.warranty === 'object' && !Array.isArray(metadata.warranty)
      ? (metadata.warranty as Record<string, unknown>)
      : null;
  // name is the heading, tokenId the Token row, warranty its own section, image a picture.
  const fields = Object.entries(metadata).filter(
    ([k, val]) => !['name', 'tokenId', 'warranty'].includes(k) && val !== null && val !== undefined,
  );
  const vi = v.image;
  const image = vi
    ? vi.state === 'archived' || vi.state === 'hotlinked'
      ? vi.url
      : null
    : c.imageUrl && /^https?:\/\//i.test(c.imageUrl)
      ? c.imageUrl
      : null;
  const banner = v.burned
    ? html`<div class="banner burned" id="result" data-result="burned">
        This certificate was burned<small
          >Its token was permanently destroyed on the blockchain; it no longer certifies anything.</small
        >
      </div>`
    : v.verified
      ? html`<div class="banner ok" id="result" data-result="verified">
          ✓ Genuine: every check passed<small>Verified ${formatDate(v.verifiedAt)}</small>
        </div>`
      : html`<div class="banner bad" id="result" data-result="failed">
          ✗ Verification failed<small
            >${v.checks.filter((k) => !k.passed).length} of ${v.checks.length} checks did not pass; see why
            below.</small
          >
        </div>`;

  // A lost/stolen report comes first: a buyer must see it before "Genuine".
  const body = html`${stolenBanner(
      c.stolen
        ? { kind: c.stolen.kind, reported_at: c.stolen.reportedAt, reported_by: c.stolen.reportedBy }
        : undefined,
      describedIssuer(issuer),
    )}${lead}${banner}
    <section class="card">
      ${photo(vi, image, c.name)}
      <h1 id="name">${c.name}</h1>
      ${renderIssuer(issuer)}
      <table class="attrs" id="attributes">
        <caption class="visually-hidden">
          Attributes
        </caption>
        <tbody>
          ${fields.map(
            ([k, val]) =>
              html`<tr data-attribute="${k}">
                <th scope="row">${attributeLabel(k)}</th>
                <td>${k === 'image' && typeof val === 'object' ? imageEntry(val) : attributeValue(val)}</td>
              </tr>`,
          )}
          <tr>
            <th scope="row">Certificate</th>
            <td>${c.id}</td>
          </tr>
          ${
            c.chain.tokenId !== null
              ? html`<tr>
                  <th scope="row">Token</th>
                  <td>#${c.chain.tokenId}</td>
                </tr>`
              : null
          }
          <tr>
            <th scope="row">Status</th>
            <td id="status">${c.status}</td>
          </tr>
        </tbody>
      </table>
    </section>
    <section class="card" id="checks">
      <h2>Checks</h2>
      <ul class="checks">
        ${v.checks.map(
          (k) =>
            html`<li
              class="${k.passed ? 'pass' : 'fail'}"
              data-check="${k.name}"
              data-passed="${k.passed ? 'true' : 'false'}"
            >
              <span class="mark">${k.passed ? '✓' : '✗'}</span>${CHECK_LABELS[k.name] ?? k.name}:
              <strong>${k.passed ? 'pass' : 'fail'}</strong><span class="why">${k.detail}</span>
            </li>`,
        )}
      </ul>
      ${
        v.links.proofBundle
          ? html`<p class="proof">
              <a id="download-proof" href="/api/certificate/${encodeURIComponent(v.id)}/proof" download
                >Download proof</a
              ><span class="why"
                >One file (the credential, the Merkle proof and the mint transaction) that proves this
                certificate against the blockchain without Hallmark.</span
              >
            </p>`
          : null
      }
    </section>
    ${warranty ? warrantySection(warranty) : null}
    <section class="card" id="provenance">
      <h2>Provenance</h2>
      ${
        c.provenance.length === 0
          ? html`<p>No history yet.</p>`
          : html`<ol class="timeline">
              ${c.provenance.map(provenanceItem)}
            </ol>`
      }
    </section>
    ${technicalDetails(v, explorer)}
    <section class="card qr">
      <h2>Share</h2>
      <img
        src="${qrPath}"
        alt="QR code of this page"
        width="160"
        height="160"
        loading="lazy"
        decoding="async"
      />
    </section>`;
  return page(`${c.name} · Hallmark verification`, body, {
    description: `${c.name}: a certificate of authenticity${describedIssuer(issuer) ? ` issued by ${describedIssuer(issuer)}` : ''}, checked against the blockchain by Hallmark.`,
    indexable: issuer?.indexable === true,
  });
}

/** The friendly page of an unknown certificate (status 404). */
export function renderNotFoundPage(id: string): string {
  return page(
    'Certificate not found · Hallmark',
    html`<div class="banner bad" id="result" data-result="not_found">
        Certificate not found<small>Hallmark has no certificate with the id <code>${id}</code>.</small>
      </div>
      <section class="card">
        <p>
          Check that you scanned the whole QR code or typed the link exactly. A certificate that is not in
          Hallmark's records cannot be verified, so treat the item with care.
        </p>
      </section>`,
  );
}

/** The page shown when verification could not run (a service or chain outage). */
export function renderUnavailablePage(): string {
  return page(
    'Verification unavailable · Hallmark',
    html`<div class="banner bad" id="result" data-result="unavailable">
      Verification is unavailable right now<small>Please try again in a minute.</small>
    </div>`,
  );
}
