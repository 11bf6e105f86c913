// "Issued by <brand>": the issuer line of the verify, voucher and claim pages and the public
// certificate read, from the enterprise's issuer profile, which the certificates service
// answers with what the page reads (its copy of the keys service's profiles, kept by events:
// one call per page, and keys down changes nothing). A page without a profile says plainly
// "Issuer not verified": nobody has confirmed who issued it, and silence would read as if
// that did not matter.
import type { IssuerProfile } from '@hallmark/proto/certificates/v1/certificates';
import { html, type Html } from './html.js';

export interface IssuerView {
  name: string;
  website: string;
  host: string;
  domainVerified: boolean;
  /** The logo as Hallmark serves it (`/media/<sha256>`, archived from the brand's URL), and its size. */
  logo: { path: string; width: number; height: number } | null;
  /** The enterprise lets search engines index its verify pages. */
  indexable: boolean;
}

/** The logo's box: 40 px high (at most 160 wide), its own proportions when known. */
function logoBox(width: number, height: number): { w: number; h: number } {
  if (width <= 0 || height <= 0) return { w: 40, h: 40 };
  const h = 40;
  const w = Math.min(160, Math.max(1, Math.round((width * h) / height)));
  return { w, h: w === 160 ? Math.max(1, Math.round((height * 160) / width)) : h };
}

/**
 * The issuer line's profile as the certificates service answers it with the certificate,
 * voucher or gift (its read model of keys' profiles), or null (none, or not one to show).
 */
export function issuerFrom(p: IssuerProfile | undefined): IssuerView | null {
  if (!p) return null;
  let host: string;
  try {
    host = new URL(p.website).host;
  } catch {
    return null;
  }
  return {
    name: p.display_name,
    website: p.website,
    host,
    domainVerified: p.domain_verified,
    logo: p.logo_sha256
      ? { path: `/media/${p.logo_sha256}`, width: p.logo_width, height: p.logo_height }
      : null,
    indexable: p.indexable,
  };
}

/** The issuer as the public read carries it. */
export const presentIssuer = (i: IssuerView | null) =>
  i && { name: i.name, website: i.website, domain: i.host, domainVerified: i.domainVerified };

/**
 * The issuer line. Without a profile: "Issuer not verified" (nobody confirms who issued it).
 * A verified issuer (its website publishes the enterprise's id) is named with emphasis, its
 * logo and a "domain verified" badge. An unverified one is a claim anyone can
 * type, so it is shown as such: a plain "Issuer not verified" label first, then "Claimed by
 * <name>" in ordinary weight, no logo (a copied brand logo is the strongest false cue), and
 * the website as text, not a link. The label is words, not only colour, and the line is one
 * sentence to a screen reader.
 */
export function renderIssuer(i: IssuerView | null): Html {
  if (!i)
    return html`<p class="issuer unverified" id="issuer" data-domain="none">
      <span class="badge warn">Issuer not verified</span>
      The issuer has no Hallmark profile, so who issued this certificate is not confirmed.
    </p>`;
  if (!i.domainVerified)
    return html`<p class="issuer unverified" id="issuer" data-domain="unverified">
      <span class="badge warn">Issuer not verified</span>
      Claimed by <span class="claimed-name">${i.name}</span>${
        i.host ? html` — ${i.host} does not confirm it` : null
      }.
    </p>`;
  const box = i.logo ? logoBox(i.logo.width, i.logo.height) : null;
  return html`<p class="issuer" id="issuer" data-domain="verified">
    ${
      i.logo && box
        ? html`<img
            class="logo"
            id="issuer-logo"
            src="${i.logo.path}${i.logo.width > 480 ? '?w=480' : ''}"
            width="${box.w}"
            height="${box.h}"
            alt=""
          />`
        : null
    }
    Issued by <strong>${i.name}</strong> <br /><a href="${i.website}" rel="noopener noreferrer">${i.host}</a>
    <span class="badge ok" title="${i.host} publishes this issuer’s Hallmark id">✓ domain verified</span>
  </p>`;
}

/** A name only the certificate's own metadata gives (no profile): never more than a claim. */
export const claimedIssuer = (name: string): IssuerView => ({
  name,
  website: '',
  host: '',
  domainVerified: false,
  logo: null,
  indexable: false,
});

/** The issuer's name for a page's description (link previews): only a verified one. */
export const describedIssuer = (i: IssuerView | null): string | null => (i?.domainVerified ? i.name : null);
