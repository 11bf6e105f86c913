// HTML output: the template is HTML written by the enterprise; every variable value is
// HTML-escaped, so a value can never add markup. Styling becomes a small stylesheet
// (its values are validated to hex colours, numbers and plain font names).
import { escapeHtml, fill } from '../domain/placeholders.js';
import type { Styling } from '../domain/template.js';

export function stylesheet(s: Styling): string {
  const font = s.fontFamily ? `${s.fontFamily}, ` : '';
  const rules = [
    `body{font-family:${font}Helvetica, Arial, sans-serif;font-size:${s.fontSize ?? 11}pt;line-height:1.45;color:#1f2328;margin:2em}`,
  ];
  if (s.brandColor) rules.push(`h1,h2,h3,a,th{color:${s.brandColor}}`);
  return rules.join('');
}

/** The body fragment with values filled in, escaped. */
export const renderHtmlFragment = (template: string, values: Map<string, string>): string =>
  fill(template, (name) => escapeHtml(values.get(name) ?? ''));

export function renderHtmlDocument(
  title: string,
  template: string,
  styling: Styling,
  values: Map<string, string>,
): string {
  return [
    '<!DOCTYPE html>',
    '<html>',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${stylesheet(styling)}</style>`,
    '</head>',
    `<body>${renderHtmlFragment(template, values)}</body>`,
    '</html>',
    '',
  ].join('\n');
}

/** Plain text of an HTML template (for SMS and the text part of an email), values raw. */
export function htmlToTextTemplate(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
