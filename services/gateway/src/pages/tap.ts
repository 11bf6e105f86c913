// The page an NFC tag's tap opens (`/t/:key_id?picc_data=…&cmac=…`, docs/nfc-tags.md): a
// genuine tap is the certificate's verification page under a "Genuine tag, tap N" banner;
// every failure is a short page that names it plainly and says what to do. Never cached: each
// tap's message is used once.
import type { TapResponse } from '@hallmark/proto/certificates/v1/tags';
import { html, type Html } from './html.js';
import type { IssuerView } from './issuer.js';
import { pageKind } from './shell.js';
import type { Explorer } from './technical.js';
import { presentVerification } from '../routes/verify/verification.js';
import { renderVerifyPage } from './verify.js';

const page = pageKind({
  heading: 'Hallmark · Tap to verify',
  footer: 'Each tap of a genuine tag writes a new signed message, checked by Hallmark.',
});

/** HTTP status of each outcome's page. */
export const TAP_STATUS: Record<string, number> = {
  genuine: 200,
  replayed: 409,
  bad_signature: 400,
  revoked: 410,
  unknown_tag: 404,
  malformed: 400,
};

interface Failure {
  title: string;
  headline: string;
  why: string;
  advice: string;
}

const FAILURES: Record<string, Failure> = {
  replayed: {
    title: 'Tag message already used',
    headline: 'This tag message was already used — it may be a copy',
    why: 'A genuine tag writes a new message every time it is tapped; this one was seen before.',
    advice:
      'Tap the tag again with your phone. If a fresh tap says “Genuine tag”, all is well (you probably ' +
      'reopened an old link). If every tap shows this page, the tag is likely a copy of a genuine one.',
  },
  bad_signature: {
    title: 'Tag signature wrong',
    headline: 'The tag’s signature is wrong',
    why: 'The message names a registered tag, but it was not signed with that tag’s key.',
    advice: 'Treat the item as not verified: the tag may be a forgery.',
  },
  revoked: {
    title: 'Tag revoked',
    headline: 'This tag was revoked',
    why: 'The brand withdrew this tag; it no longer vouches for any item.',
    advice: 'Ask the seller or the brand why; do not rely on this tag.',
  },
  unknown_tag: {
    title: 'Unknown tag',
    headline: 'Unknown tag',
    why: 'Hallmark has no registered tag that made this message.',
    advice: 'Treat the item as not verified.',
  },
  malformed: {
    title: 'Not a tag message',
    headline: 'This link is not a complete tag message',
    why: 'The link is missing the tag’s encrypted data or signature, or they were cut short.',
    advice: 'Tap the tag again rather than typing or copying the link.',
  },
};

/** The banner a genuine tap puts above the verification page. */
const genuineBanner = (n: number | undefined): Html =>
  html`<div class="banner ok" id="tap" data-tap="genuine" data-tap-number="${String(n ?? 0)}">
    ✓ Genuine tag, tap ${String(n ?? 0)}<small
      >This tag signed a new message for this tap; it belongs to the certificate below.</small
    >
  </div>`;

/** The page of a tap's outcome (`publicUrl`: the verification's links, as the open API gives them). */
export function renderTapPage(
  r: TapResponse,
  issuer: IssuerView | null,
  explorer: Explorer | null,
  publicUrl: string,
): string {
  if (r.outcome === 'genuine' && r.verification?.certificate) {
    const id = r.verification.certificate.id;
    return renderVerifyPage(
      presentVerification(r.verification, publicUrl),
      `/verify/${encodeURIComponent(id)}/qr.svg`,
      issuer,
      explorer,
      genuineBanner(r.tap_number),
    );
  }
  const f = FAILURES[r.outcome] ?? FAILURES.unknown_tag!;
  const counter =
    r.outcome === 'replayed' && r.counter !== undefined
      ? html`<p id="counters">
          Tap counter in this message: <strong>${String(r.counter)}</strong>; last genuine tap:
          <strong>${String(r.last_counter ?? 0)}</strong>.
        </p>`
      : null;
  return page(
    `${f.title} · Hallmark`,
    html`<div class="banner bad" id="tap" data-tap="${r.outcome}">${f.headline}<small>${f.why}</small></div>
      <section class="card">
        <p>${f.advice}</p>
        ${counter}
      </section>`,
  );
}

/** The page when the tap could not be checked (a service outage). */
export function renderTapUnavailablePage(): string {
  return page(
    'Tap check unavailable · Hallmark',
    html`<div class="banner bad" id="tap" data-tap="unavailable">
      The tag cannot be checked right now<small>Please tap it again in a minute.</small>
    </div>`,
  );
}
