// The structure of a text template rendered to PDF or DOCX: a tiny Markdown subset read
// from the template itself (never from variable values, so a value cannot add a heading):
// `# `, `## `, `### ` headings; blank lines separate paragraphs; other line breaks stay.
import { fill } from '../domain/placeholders.js';

export type Block =
  { kind: 'heading'; level: 1 | 2 | 3; text: string } | { kind: 'paragraph'; lines: string[] };

export function toBlocks(template: string, value: (name: string) => string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length > 0) blocks.push({ kind: 'paragraph', lines: para });
    para = [];
  };
  for (const raw of template.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(raw);
    if (heading) {
      flush();
      blocks.push({
        kind: 'heading',
        level: heading[1]!.length as 1 | 2 | 3,
        text: fill(heading[2]!, value),
      });
    } else if (raw.trim() === '') {
      flush();
    } else {
      para.push(fill(raw, value));
    }
  }
  flush();
  return blocks;
}
