// The verify page's "Service history" (docs/service-records.md): the service records the
// owner accepted, oldest performed first, each with what was done, by whom, when, and its
// photos and scanned documents as Hallmark archived them. Pending and refused records never
// reach the page (the certificates service leaves them out of every public read). Nothing is
// shown when there is no accepted record.
import type { Static } from '../endpoint/schema.js';
import type { ServiceHistoryEntrySchema } from '../routes/certificates/service-history.js';

type ServiceHistoryEntry = Static<typeof ServiceHistoryEntrySchema>;
import { html, unsafeRaw, type Html } from './html.js';
import { photoBox } from './photo.js';

export const SERVICE_HISTORY_STYLE = unsafeRaw(`
ol.service{list-style:none;margin:0;padding:0}
.service>li{border-top:1px solid #eee;padding:.75rem 0}
.service>li:first-child{border-top:0;padding-top:0}
.service .what{font-weight:600}
.service .meta{color:#555;font-size:.9rem}
.service .desc{margin:.35rem 0;white-space:pre-line;overflow-wrap:anywhere}
.service .files{display:flex;flex-wrap:wrap;gap:.5rem;margin:.35rem 0 0;padding:0;list-style:none}
.service .files img{display:block;border-radius:4px;border:1px solid #ddd;height:auto;max-width:8rem}
`);

const KIND_LABELS: Record<string, string> = {
  repair: 'Repair',
  authentication_check: 'Authentication check',
  refurbishment: 'Refurbishment',
};

const day = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
};

function attachment(a: ServiceHistoryEntry['attachments'][number], n: number): Html {
  const src = a.url;
  const { w, h } = photoBox(a.width, a.height, 128);
  const alt = a.caption ?? (a.kind === 'document' ? `Document ${n}` : `Photo ${n}`);
  return html`<li data-attachment="${a.kind}">
    <a href="${src}"><img src="${src}?w=480" width="${w}" height="${h}" alt="${alt}" loading="lazy" /></a>
  </li>`;
}

function entry(e: ServiceHistoryEntry): Html {
  const what = e.kind === 'other' ? (e.label ?? 'Service') : (KIND_LABELS[e.kind] ?? e.kind);
  return html`<li data-service-record="${e.id}" data-kind="${e.kind}">
    <span class="what">${what}</span>
    <span class="meta"> · ${day(e.performedAt)} · ${e.performer}</span>
    <p class="desc">${e.description}</p>
    ${
      e.attachments.length
        ? html`<ul class="files">
            ${e.attachments.map((a, i) => attachment(a, i + 1))}
          </ul>`
        : null
    }
  </li>`;
}

/** The section, or null when the owner accepted no record. */
export function serviceHistorySection(entries: readonly ServiceHistoryEntry[] | undefined): Html | null {
  if (!entries?.length) return null;
  return html`<section class="card" id="service-history">
    <h2>Service history</h2>
    <p class="meta">Work recorded by the brand or its repairers and accepted by the owner.</p>
    <ol class="service">
      ${entries.map(entry)}
    </ol>
  </section>`;
}
