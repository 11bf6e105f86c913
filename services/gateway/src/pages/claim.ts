// The claim page of a gift or a resale (`/claim/:token`): the verification page's shell
// (server-rendered, no JavaScript, one inline stylesheet, strict CSP). It shows what is offered
// (certificate image, name, issuer), the sender's message, the expiry and how to claim; with
// HALLMARK_CLAIM_APP_URL set it links there with the token. A resale's buyer reads about their
// purchase and its seller, never about a gift. Every value is escaped by `html`.
import type { GiftView } from '@hallmark/proto/certificates/v1/gifts';
import { claimedIssuer, renderIssuer, type IssuerView } from './issuer.js';
import { html, unsafeRaw } from './html.js';
import { photoImg } from './photo.js';
import { pageKind, unavailableBanner } from './shell.js';

const STYLE = unsafeRaw(`
.banner.pending{background:#e3f6e8;color:#0f5a26}
blockquote{margin:.5rem 0;padding:.5rem .75rem;border-left:4px solid #c9d3e0;background:#f7f9fc;white-space:pre-wrap;overflow-wrap:anywhere}
a.button{display:inline-block;background:#1d4ea3;color:#fff;border-radius:8px;padding:.6rem 1rem;text-decoration:none;font-weight:600}
code{font:.85rem ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
`);

const FOOTER = 'Certificates are recorded on a public blockchain by Hallmark.';
const PAGES = {
  gift: pageKind({ heading: 'Hallmark · Gift', footer: FOOTER, style: STYLE }),
  resale: pageKind({ heading: 'Hallmark · Resale', footer: FOOTER, style: STYLE }),
};

/** How each kind of hand-over is worded (GiftView.kind: `gift`, `resale`; anything else a gift). */
const WORDS = {
  gift: {
    title: 'a gift for you',
    offered: 'A certificate was gifted to you',
    from: 'Message from the sender',
    description: 'A gift for you',
  },
  resale: {
    title: 'your purchase',
    offered: 'The certificate of your purchase is ready for you',
    from: 'Message from the seller',
    description: 'The certificate of your purchase',
  },
};
export type ClaimKind = keyof typeof WORDS;
export const claimKind = (kind: string | undefined): ClaimKind => (kind === 'resale' ? 'resale' : 'gift');

const formatDate = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/:\d\d\.\d+Z$/, ' UTC');
};

export interface ClaimPageLinks {
  /** POST target of the claim (the API). */
  claimApi: string;
  /** HALLMARK_CLAIM_APP_URL with the token, when configured. */
  claimApp: string | null;
  verify: string;
}

export function renderClaimPage(
  v: GiftView,
  links: ClaimPageLinks,
  issuer: IssuerView | null = null,
): string {
  const kind = claimKind(v.kind);
  const words = WORDS[kind];
  const how = links.claimApp
    ? html`<p><a class="button" id="claim" href="${links.claimApp}">Claim this certificate</a></p>
        <p>
          Sign in (or create an account) and the certificate moves to your own wallet. The link works once.
        </p>`
    : html`<p>Sign in to Hallmark and claim it with your session:</p>
        <p><code>POST ${links.claimApi}</code></p>
        <p>The certificate then moves to your own wallet. The link works once.</p>`;
  return PAGES[kind](
    `${v.certificate_name} · ${words.title} · Hallmark`,
    html`<div class="banner pending" id="status" data-status="pending">
        ${words.offered}<small>Claim it before ${formatDate(v.expires_at)}.</small>
      </div>
      <section class="card">
        ${v.image_url ? photoImg(v.image_url, v.certificate_name) : ''}
        <h1 id="name">${v.certificate_name}</h1>
        ${issuer ? renderIssuer(issuer) : v.issuer ? renderIssuer(claimedIssuer(v.issuer)) : ''}
        <p><a href="${links.verify}">Verify this certificate</a></p>
      </section>
      ${
        v.message
          ? html`<section class="card">
              <h2>${words.from}</h2>
              <blockquote id="message">${v.message}</blockquote>
            </section>`
          : ''
      }
      <section class="card">
        <h2>How to claim</h2>
        ${how}
      </section>`,
    {
      description: `${words.description}: ${v.certificate_name}, a certificate of authenticity recorded on a public blockchain by Hallmark.`,
    },
  );
}

const GIFT_REASONS: Record<string, [string, string]> = {
  claiming: ['This gift has been claimed', 'Its certificate is on its way to the recipient.'],
  claimed: ['This gift has been claimed', 'A claim link works only once.'],
  revoked: ['This gift was withdrawn', 'The sender revoked it; the certificate stayed with them.'],
  expired: ['This gift has expired', 'It was not claimed in time; the certificate stays with the sender.'],
  // Pending, but its certificate is in another hand-over or no longer with the sender.
  unavailable: [
    'This gift cannot be claimed',
    'Its certificate is no longer available for it: it is being handed over another way, or has moved.',
  ],
  rate_limited: ['Too many invalid claim links', 'Please wait a while before trying again.'],
};

const RESALE_REASONS: Record<string, [string, string]> = {
  ...GIFT_REASONS,
  claiming: ['This purchase has been claimed', 'Its certificate is on its way to the buyer.'],
  claimed: ['This purchase has been claimed', 'A claim link works only once.'],
  revoked: [
    'This resale was cancelled',
    'The seller cancelled it or the brand refused it; the certificate stayed with the seller.',
  ],
  expired: ['This resale has expired', 'It was not claimed in time; the certificate stays with the seller.'],
  unavailable: [
    'This purchase cannot be claimed',
    'Its certificate is no longer available for it: it is being handed over another way, or has moved.',
  ],
};

/** A link that cannot be claimed (any status but pending), or an unknown one (404). */
export function renderClaimInvalidPage(status: string | null, kind: ClaimKind = 'gift'): string {
  const reasons = kind === 'resale' ? RESALE_REASONS : GIFT_REASONS;
  const [title, detail] = (status && reasons[status]) || [
    'This claim link is not valid',
    'It may be mistyped, already used, withdrawn or expired.',
  ];
  return PAGES[kind](
    `${title} · Hallmark`,
    html`<div class="banner bad" id="status" data-status="${status ?? 'not_found'}">
      ${title}<small>${detail}</small>
    </div>`,
  );
}

/** An outage: whether the link is a gift or a resale is not known, so neither is named. */
export function renderClaimUnavailablePage(): string {
  return PAGES.gift('Claim unavailable · Hallmark', unavailableBanner('claim link'));
}
