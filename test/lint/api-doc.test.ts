// docs/api.md and the guide the gateway serves are one text: the generated regions of the API
// guide are what scripts/api-doc.ts renders from the served guide, the error catalogue and the
// event contracts as they are now (the operations index needs the whole gateway built, so
// `pnpm gen` and CI's drift check keep that one).
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { GUIDE } from '@hallmark/gateway/openapi-guide';
import { guideSections, renderApiDoc } from '../../scripts/api-doc.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const apiDoc = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');

describe('docs/api.md', () => {
  it('shows every section of the served guide, the error codes and the event types as the code has them (pnpm gen)', () => {
    expect(renderApiDoc(apiDoc, { guide: GUIDE })).toBe(apiDoc);
  });

  it('holds the served guide section by section, and an operations index', () => {
    const sections = [...guideSections(GUIDE).entries()].filter(([title]) => title !== '');
    expect(sections.length).toBeGreaterThan(5);
    for (const [, body] of sections) expect(apiDoc).toContain(body);
    expect(apiDoc).toMatch(/<!-- generated: operations[^\n]*-->\n\*\*API keys\*\*/);
  });

  it('refuses a region naming a guide section that does not exist, and a guide section no region shows', () => {
    const region = (title: string) => `<!-- generated: guide "${title}" -->\nold\n<!-- end generated -->\n`;
    const guide = '## One\n\nfirst\n\n## Two\n\nsecond\n';
    expect(renderApiDoc(region('One') + region('Two'), { guide })).toBe(
      '<!-- generated: guide "One" -->\nfirst\n<!-- end generated -->\n' +
        '<!-- generated: guide "Two" -->\nsecond\n<!-- end generated -->\n',
    );
    expect(() => renderApiDoc(region('One') + region('Three'), { guide })).toThrow(/no section "Three"/);
    expect(() => renderApiDoc(region('One'), { guide })).toThrow(/does not show: Two/);
  });
});
