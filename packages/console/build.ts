// Builds the console into dist/: index.html (a template the gateway fills with the sign-in
// settings), content-hashed JS and CSS under dist/assets/ (served with a year's immutable
// cache: a new build has new names) and dist/manifest.json (the files, the entry, and what a
// first load costs: the entry chunk and the chunks it imports statically, raw and gzipped;
// test/budget.test.ts holds it to the README's budget). Each page is its own chunk, loaded when
// first opened. `pnpm test` and `pnpm start` build it here; the production tree into the
// gateway's tree (services/gateway/console/, scripts/prod-tree.ts), where the gateway finds it.
import { build, type Metafile, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = import.meta.dirname;

/**
 * @hallmark/client is written for Node and browsers; the few Node modules it imports are only
 * reached by its file-path uploads and webhook checks, which the console never calls (it
 * uploads browser Files through the client's `fetch` option). Each resolves to a stub that
 * throws if ever called, so a mistake is loud, and tree-shaking drops them.
 */
const nodeStubs: Plugin = {
  name: 'node-stubs',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'node-stub' }, (args) => ({
      contents: `const no = () => { throw new Error('${args.path} is not available in the console'); };
export default new Proxy({}, { get: () => no });
export const randomBytes = (n) => { const b = crypto.getRandomValues(new Uint8Array(n));
  return { toString: () => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('') }; };
export const createReadStream = no, stat = no, createHmac = no, timingSafeEqual = no;
export const Readable = { fromWeb: no };`,
      loader: 'js',
    }));
  },
};

/** Builds into `out` (default dist/; the production tree builds into the gateway's console/). */
export interface ConsoleManifest {
  entry: string;
  css: string;
  files: string[];
  firstLoad: string[];
  firstLoadJsBytes: number;
  firstLoadJsGzipBytes: number;
}

export async function buildConsole(out = path.join(dir, 'dist')): Promise<ConsoleManifest> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    absWorkingDir: dir,
    entryPoints: { main: 'src/main.tsx', console: 'src/console.css' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    conditions: ['hallmark-source'],
    outdir: path.join(out, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    plugins: [nodeStubs],
    logLevel: 'warning',
  });
  const outputs: Metafile['outputs'] = result.metafile.outputs;
  const rel = (p: string) => path.relative(out, path.join(dir, p)).split(path.sep).join('/');
  const entry = Object.keys(outputs).find((p) => outputs[p]!.entryPoint === 'src/main.tsx')!;
  const css = Object.keys(outputs).find((p) => outputs[p]!.entryPoint === 'src/console.css')!;
  // The first load: the entry and, transitively, what it imports statically (not the pages).
  const first = new Set<string>();
  const visit = (p: string) => {
    if (first.has(p)) return;
    first.add(p);
    for (const i of outputs[p]!.imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(entry);
  const bytes = (p: string) => readFileSync(path.join(dir, p));
  const firstLoad = [...first];
  const manifest: ConsoleManifest = {
    entry: rel(entry),
    css: rel(css),
    files: Object.keys(outputs)
      .filter((p) => !p.endsWith('.map'))
      .map(rel),
    firstLoad: firstLoad.map(rel),
    firstLoadJsBytes: firstLoad.reduce((n, p) => n + bytes(p).length, 0),
    firstLoadJsGzipBytes: firstLoad.reduce((n, p) => n + gzipSync(bytes(p), { level: 9 }).length, 0),
  };
  const html = readFileSync(path.join(dir, 'src', 'index.html'), 'utf8')
    .replace('%CSS%', `/console/${manifest.css}`)
    .replace('%ENTRY%', `/console/${manifest.entry}`)
    .replace(
      '%PRELOAD%',
      manifest.firstLoad
        .slice(1)
        .map((f) => `<link rel="modulepreload" href="/console/${f}">`)
        .join(''),
    );
  writeFileSync(path.join(out, 'index.html'), html);
  writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (import.meta.filename === process.argv[1]) {
  const m = await buildConsole();
  process.stdout.write(
    `console: dist/ built, first load ${m.firstLoadJsBytes} B of JS (${m.firstLoadJsGzipBytes} B gzipped)\n`,
  );
}
