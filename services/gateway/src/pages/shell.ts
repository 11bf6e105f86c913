// The one shell every public HTML page shares (verification, certificate voucher, platform
// install refusal, gift claim): the document around the page's body, and how it is sent —
// one content security policy, never cached (but the verification page, from the public
// cache: `sendCachedPage`), no referrer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendCached } from '../cache/http.js';
import { html, type Html } from './html.js';

/** Every page's policy: nothing but its own inline styles and images (https, data, its QR code). */
const PAGE_CSP =
  "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The document every public page shares (no scripts; one inline style block). */
export function pageShell(p: {
  title: string;
  heading: string;
  footer: string;
  style: Html;
  body: Html;
}): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${p.title}</title>
        <style>
          ${p.style}
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
