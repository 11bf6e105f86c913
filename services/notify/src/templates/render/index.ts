// Rendering a stored template: resolve the typed values, then produce the template's
// format. Pure apart from the PDF/DOCX encoders (in-memory).
import { invalidParam } from '@hallmark/kit';
import { fill } from '../domain/placeholders.js';
import { kindOf, type Format, type TemplateDraft } from '../domain/template.js';
import { resolveValues } from '../domain/variables.js';
import { toBlocks } from './blocks.js';
import { renderDocx } from './docx.js';
import { htmlToTextTemplate, renderHtmlDocument } from './html.js';
import { renderPdf } from './pdf.js';

export const CONTENT_TYPES: Record<Format, string> = {
  html: 'text/html; charset=utf-8',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export interface Rendered {
  content: Buffer;
  contentType: string;
  filename: string;
  format: Format;
  subject?: string;
}

/** File name from the template name: ASCII letters, digits, - and _, plus the extension. */
export function fileNameFor(name: string, format: Format): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${slug || 'template'}.${format}`;
}

export async function renderTemplate(
  t: TemplateDraft,
  given: Record<string, unknown> | undefined,
  locale: string,
): Promise<Rendered> {
  const c = t.content;
  const kind = kindOf(c.type);
  if (kind === 'workflow')
    throw invalidParam('template_id', 'Workflow templates describe steps; they are not rendered.');
  const values = resolveValues(t.variables, given, locale);
  const raw = (name: string) => values.get(name) ?? '';
  const format: Format = c.format ?? 'html';
  const out = (content: Buffer): Rendered => ({
    content,
    contentType: CONTENT_TYPES[format],
    filename: fileNameFor(c.name, format),
    format,
    ...(kind === 'email' ? { subject: fill(c.subject!, raw) } : {}),
  });
  const source = kind === 'email' ? c.body! : c.template!;
  switch (format) {
    case 'html':
      return out(Buffer.from(renderHtmlDocument(c.name, source, c.styling, values), 'utf8'));
    case 'pdf':
      return out(await renderPdf(c.name, toBlocks(source, raw), c.styling));
    case 'docx':
      return out(await renderDocx(c.name, toBlocks(source, raw), c.styling));
  }
}

/** Plain-text rendering (SMS, the text part of an email): tags stripped, values unescaped. */
export function renderText(
  t: TemplateDraft,
  given: Record<string, unknown> | undefined,
  locale: string,
): string {
  const c = t.content;
  const kind = kindOf(c.type);
  if (kind === 'workflow') throw invalidParam('template_id', 'Workflow templates cannot be sent.');
  const values = resolveValues(t.variables, given, locale);
  const source = kind === 'email' ? c.body! : c.template!;
  const textTemplate = c.format === 'html' ? htmlToTextTemplate(source) : source;
  return fill(textTemplate, (name) => values.get(name) ?? '');
}
