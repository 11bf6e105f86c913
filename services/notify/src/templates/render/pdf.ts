// PDF output with pdfkit. Only the 14 standard PDF fonts are embedded-free, so the
// styling's font family maps to the nearest one (serif → Times, monospace → Courier,
// otherwise Helvetica); text outside their WinAnsi character set is not drawable there.
import PDFDocument from 'pdfkit';
import type { Styling } from '../domain/template.js';
import type { Block } from './blocks.js';

export function standardFont(family: string | undefined): { regular: string; bold: string } {
  const f = (family ?? '').toLowerCase();
  if (/mono|courier|consolas|menlo/.test(f)) return { regular: 'Courier', bold: 'Courier-Bold' };
  if (/times|serif|georgia|garamond|cambria/.test(f) && !/sans/.test(f))
    return { regular: 'Times-Roman', bold: 'Times-Bold' };
  return { regular: 'Helvetica', bold: 'Helvetica-Bold' };
}

const HEADING_SCALE = { 1: 1.8, 2: 1.4, 3: 1.2 } as const;

export function renderPdf(title: string, blocks: Block[], styling: Styling): Promise<Buffer> {
  const size = styling.fontSize ?? 11;
  const fonts = standardFont(styling.fontFamily);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: title, Producer: 'Hallmark', Creator: 'Hallmark templates' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  for (const b of blocks) {
    if (b.kind === 'heading') {
      doc
        .font(fonts.bold)
        .fontSize(size * HEADING_SCALE[b.level])
        .fillColor(styling.brandColor ?? '#111111')
        .text(b.text, { paragraphGap: size * 0.5 });
    } else {
      doc
        .font(fonts.regular)
        .fontSize(size)
        .fillColor('#1f2328')
        .text(b.lines.join('\n'), { paragraphGap: size * 0.8, lineGap: size * 0.2 });
    }
  }
  doc.end();
  return done;
}
