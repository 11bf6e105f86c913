// A certificate's attributes as a person reads them (the verify and voucher pages): labels
// from the metadata's keys, values as text, yes/no or lists, an archived image's hash as a short
// fingerprint; never raw JSON.
import { html, type Html } from './html.js';

/** A SHA-256 as people compare it: the first and last 8 hex digits. */
export const fingerprint = (hex: string) =>
  /^[0-9a-f]{64}$/i.test(hex) ? `${hex.slice(0, 8)}…${hex.slice(-8)}`.toLowerCase() : hex;

/**
 * The metadata's `image` entry (`{sha256, contentType}` for an archived image) as a person
 * reads it: the hash as a short fingerprint (the whole hash on hover); the picture itself is
 * the certificate's photo above the table.
 */
export function imageEntry(entry: unknown): Html | string {
  const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
  const sha = typeof e.sha256 === 'string' ? e.sha256 : null;
  if (!sha) return attributeValue(entry);
  return html`<span class="image-entry"
    >SHA-256 <code class="fingerprint" title="${sha}">${fingerprint(sha)}</code></span
  >`;
}

const LABELS: Record<string, string> = { sku: 'SKU', externalUrl: 'Web page', imageSource: 'Image source' };

/** An attribute's name as a label: `serialNumber` → `Serial number`, `made_in` → `Made in`. */
export function attributeLabel(key: string): string {
  if (LABELS[key]) return LABELS[key];
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/\s+/g, ' ')
    .trim();
  if (!words) return key;
  return (
    words[0]!.toUpperCase() +
    words.slice(1).replace(/\b([A-Z])([a-z])/g, (_, a: string, b: string) => a.toLowerCase() + b)
  );
}

/** A value as a person reads it: text, yes/no, or a list (nested objects as `Label: value`); never JSON. */
export function attributeValue(v: unknown, depth = 0): Html | string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (depth > 3) return '…';
  if (Array.isArray(v))
    return html`<ul>
      ${v.map((x) => html`<li>${attributeValue(x, depth + 1)}</li>`)}
    </ul>`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(
      ([, x]) => x !== null && x !== undefined,
    );
    return html`<ul>
      ${entries.map(([k, x]) => html`<li>${attributeLabel(k)}: ${attributeValue(x, depth + 1)}</li>`)}
    </ul>`;
  }
  return '';
}
