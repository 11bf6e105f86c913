// Builds static/verifier.html: the verifier page with @hallmark/verify and every library it
// needs inlined, one self-contained file that works opened from disk (file://), no server.
// `node build-page.mjs` writes it; `--check` exits 1 when the committed file is stale
// (test/page.test.ts runs it, so a change to the verifier that is not rebuilt fails CI).
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const dir = import.meta.dirname;
const out = path.join(dir, 'static', 'verifier.html');

/**
 * A package whose `exports` names its Node entry and whose `browser` field swaps that entry for a
 * browser one (base64url-universal: Buffer in Node, atob in browsers): esbuild takes `exports`
 * and skips the swap, so this plugin applies the package's own `browser` map to its entry.
 */
const browserEntries = {
  name: 'browser-entries',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'browser-entries') return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: 'browser-entries',
      });
      if (r.errors.length || !r.path) return r;
      let pkgDir = path.dirname(r.path);
      while (!existsSync(path.join(pkgDir, 'package.json')) && path.dirname(pkgDir) !== pkgDir)
        pkgDir = path.dirname(pkgDir);
      const browser = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).browser;
      const swap =
        browser && typeof browser === 'object' ? browser[`./${path.relative(pkgDir, r.path)}`] : undefined;
      return typeof swap === 'string' ? { ...r, path: path.join(pkgDir, swap) } : r;
    });
  },
};

export async function renderPage() {
  const result = await build({
    absWorkingDir: dir,
    entryPoints: ['page/verifier.ts'],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    conditions: ['hallmark-source'],
    logLevel: 'warning',
    plugins: [browserEntries],
  });
  // `</script` inside the inlined code would end the element early.
  const js = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  const html = readFileSync(path.join(dir, 'page', 'verifier.html'), 'utf8');
  return html.replace('<!-- SCRIPT -->', () => `<script type="module">${js}</script>`);
}

const page = await renderPage();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(out, 'utf8');
  } catch {
    // missing: stale
  }
  if (committed !== page) {
    process.stderr.write(
      'packages/verify/static/verifier.html is stale: run `pnpm --filter @hallmark/verify build:page`.\n',
    );
    process.exit(1);
  }
} else {
  writeFileSync(out, page);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)} (${page.length} bytes)\n`);
}
