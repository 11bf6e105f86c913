// The verify page's lost-and-stolen banner (docs/lost-and-stolen.md): shown above everything
// else while the certificate carries an open report, with the day it was reported, who
// reported it, and what a buyer should do. The reason is the brand's and never shown here.
import type { StolenFlag } from '@hallmark/proto/certificates/v1/certificates';
import { html, unsafeRaw, type Html } from './html.js';

export const STOLEN_STYLE = unsafeRaw(`
.banner.stolen{background:#b3261e;color:#fff;font-size:1.1rem}
.banner.stolen small{margin-top:.35rem}
`);

const day = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
};

/** The banner of a certificate reported stolen or lost (null when it carries no report). */
export function stolenBanner(flag: StolenFlag | undefined, issuer: string | null): Html | null {
  if (!flag) return null;
  const kind = flag.kind === 'lost' ? 'lost' : 'stolen';
  const by = flag.reported_by === 'owner' ? 'its owner' : (issuer ?? 'the brand');
  return html`<div class="banner stolen" id="stolen" role="alert" data-stolen="${kind}">
    ⚠ Reported ${kind} on ${day(flag.reported_at)}<small
      >Reported by ${by}. Do not buy this item: it cannot change hands in Hallmark until the report is
      cleared. If it is offered to you, contact ${issuer ?? 'the brand that issued it'} with this page's
      address.</small
    >
  </div>`;
}
