// The one shell every public HTML page shares (verification, certificate voucher, platform
// install refusal, gift claim): the document around the page's body, and how it is sent —
// one content security policy, never cached (but the verification page, from the public
// cache: `sendCachedPage`), no referrer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendCached } from '../cache/http.js';
import { html, unsafeRaw, type Html } from './html.js';

/** Every page's policy: nothing but its own inline styles and images (https, data, its QR code). */
const PAGE_CSP =
  "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Hallmark's mark as the page icon, inline (a data URL the CSP's img-src allows): no request, so
 * no /favicon.ico miss in the console and nothing to cache.
 */
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ea3"/>' +
      '<path d="M9 8v16M23 8v16M9 16h14" stroke="#fff" stroke-width="3.5" stroke-linecap="round"/></svg>',
  );

/**
 * The one page stylesheet, mobile first: the page, its card and banner, headings, the photo,
 * definition lists, the footer, the issuer line and the visually hidden captions. A page adds
 * only what is its own (`style`), after this.
 */
const PAGE_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:40rem;margin:0 auto;padding:1rem}
header{font-weight:700;letter-spacing:.04em;color:#555;font-size:.85rem;text-transform:uppercase;margin:.25rem 0 1rem}
footer{color:#555;font-size:.8rem;text-align:center;padding:1rem 0}
.card{background:#fff;border-radius:12px;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.banner{border-radius:12px;padding:1rem;margin:0 0 1rem;font-weight:600}
.banner.bad{background:#fde8e8;color:#8a1414}
.banner small{display:block;font-weight:400}
h1{font-size:1.4rem;margin:.25rem 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .5rem}
img.photo{display:block;width:100%;height:auto;max-height:22rem;object-fit:contain;border-radius:8px;background:#eee}
dl{display:grid;grid-template-columns:minmax(6rem,35%) 1fr;gap:.35rem .75rem;margin:0}
dt{color:#666}
dd{margin:0;overflow-wrap:anywhere}
.issuer{margin:.25rem 0 .75rem;overflow-wrap:anywhere}
.issuer img.logo{float:left;margin:.1rem .6rem 0 0;object-fit:contain;border-radius:4px}
.issuer .badge.ok{display:inline-block;border-radius:999px;padding:.05rem .6rem;font-size:.85rem;font-weight:600;background:#e3f6e8;color:#0f5a26}
.issuer .muted{color:#595959;font-size:.9rem}
.issuer .badge.warn{display:inline-block;border-radius:999px;padding:.05rem .6rem;font-size:.85rem;font-weight:600;background:#fdf0d5;color:#6b4500}
.issuer.unverified .claimed-name{font-weight:400}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/** What a page says to search engines and link previews. */
export const DEFAULT_DESCRIPTION =
  'A certificate of authenticity recorded on a public blockchain, checked by Hallmark.';

/**
 * The document every public page shares: no scripts; one inline style block (the page
 * stylesheet, then the page's own rules). Pages stay out of search engines (`noindex`) unless
 * `indexable`: the issuing enterprise opted in.
 */
export function pageShell(p: {
  title: string;
  heading: string;
  footer: string;
  /** The page's own rules, after the page stylesheet. */
  style?: Html;
  body: Html;
  description?: string;
  indexable?: boolean;
}): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="${p.indexable ? 'index, follow' : 'noindex'}" />
        <meta name="description" content="${p.description ?? DEFAULT_DESCRIPTION}" />
        <meta name="theme-color" content="#f4f5f7" />
        <link rel="icon" href="${FAVICON}" />
        <title>${p.title}</title>
        <style>
          ${unsafeRaw(PAGE_STYLE)}${p.style ?? ''}
        </style>
      </head>
      <body>
        <main>
          <header>${p.heading}</header>
          ${p.body}
          <footer>${p.footer}</footer>
        </main>
      </body>
    </html>`.value;
}

/** What a page may say to search engines and link previews. */
export interface PageMeta {
  description?: string;
  indexable?: boolean;
}

/** The pages of one kind (verification, voucher, gift): their heading, footer and own rules. */
export function pageKind(kind: { heading: string; footer: string; style?: Html }) {
  return (title: string, body: Html, meta: PageMeta = {}): string =>
    pageShell({ ...kind, ...meta, title, body });
}

/** The banner of a page whose subject cannot be read right now (an outage): try again soon. */
export const unavailableBanner = (what: string) =>
  html`<div class="banner bad" id="status" data-status="unavailable">
    This ${what} cannot be shown right now<small>Please try again in a minute.</small>
  </div>`;

/** Sends a rendered page with the headers every page carries. */
export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .status(status)
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** Sends a page from the public cache: the page headers, its ETag (304) and `cacheControl`. */
export function sendCachedPage(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: { body: Buffer; etag: string; hit?: boolean },
  cacheControl: string,
) {
  void reply.header('content-security-policy', PAGE_CSP).header('referrer-policy', 'no-referrer');
  return sendCached(request, reply, entry, { contentType: 'text/html; charset=utf-8', cacheControl });
}
