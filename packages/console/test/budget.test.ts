// The JavaScript a first visit downloads (the entry chunk and what it imports statically; each
// page is its own chunk, loaded when opened) stays within the budget the README states, and
// the built files are what the gateway serves: hashed names, no source maps, no inline script.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConsole } from '../build.js';

/** README › Budget: first-load JavaScript, gzipped. */
const FIRST_LOAD_JS_BUDGET_GZIP = 24 * 1024;

describe('the console build', () => {
  it(`ships at most ${FIRST_LOAD_JS_BUDGET_GZIP / 1024} KiB of JavaScript (gzipped) for a first load, pages loaded when opened`, async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'hallmark-console-'));
    try {
      const m = await buildConsole(out);
      expect(m.firstLoadJsGzipBytes).toBeLessThanOrEqual(FIRST_LOAD_JS_BUDGET_GZIP);
      expect(m.firstLoadJsGzipBytes).toBeGreaterThan(1000); // measured, not an empty file
      // No page is in the first load: each is a chunk of its own.
      expect(m.firstLoad.some((f) => /\/(bulk|keys|webhooks|overview)-/.test(f))).toBe(false);
      expect(m.files.filter((f) => /\/(overview|bulk|keys|webhooks)-[A-Z0-9]{8}\.js$/.test(f))).toHaveLength(
        4,
      );
      const html = readFileSync(path.join(out, 'index.html'), 'utf8');
      expect(html).toContain(`<script type="module" src="/console/${m.entry}"></script>`);
      expect(html.match(/<script/g)).toHaveLength(1);
      expect(html).not.toMatch(/style=/);
      expect(m.files.every((f) => /^assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/.test(f))).toBe(true);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
