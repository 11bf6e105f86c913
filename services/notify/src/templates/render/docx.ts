// DOCX output with the `docx` package: headings and paragraphs in the styling's font,
// size (half-points in Word) and brand colour for headings.
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import type { Styling } from '../domain/template.js';
import type { Block } from './blocks.js';

const HEADINGS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;
const HEADING_SCALE = { 1: 1.8, 2: 1.4, 3: 1.2 } as const;

export async function renderDocx(title: string, blocks: Block[], styling: Styling): Promise<Buffer> {
  const font = styling.fontFamily?.split(',')[0]?.trim().replace(/^'|'$/g, '') || 'Calibri';
  const size = styling.fontSize ?? 11;
  const color = styling.brandColor ? expandHex(styling.brandColor) : undefined;
  const children = blocks.map((b) =>
    b.kind === 'heading'
      ? new Paragraph({
          heading: HEADINGS[b.level],
          children: [
            new TextRun({
              text: b.text,
              bold: true,
              font,
              size: Math.round(size * HEADING_SCALE[b.level] * 2),
              color,
            }),
          ],
        })
      : new Paragraph({
          spacing: { after: Math.round(size * 10) },
          children: b.lines.map(
            (line, i) =>
              new TextRun({ text: line, font, size: Math.round(size * 2), break: i > 0 ? 1 : undefined }),
          ),
        }),
  );
  const doc = new Document({
    title,
    creator: 'Hallmark',
    styles: { default: { document: { run: { font, size: Math.round(size * 2) } } } },
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}

/** #abc → ABBCCD-style six digits without '#', as Word wants. */
export function expandHex(hex: string): string {
  const h = hex.slice(1);
  return (h.length === 3 ? [...h].map((c) => c + c).join('') : h).toUpperCase();
}
