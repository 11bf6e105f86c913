// Bundles of every service for the stacks tests start (`pnpm test` builds them first and sets
// HALLMARK_STACK_COMPILED=1; packages/devstack then starts services/<svc>/dist-stack/main.js
// instead of the TypeScript sources through tsx). The suite starts dozens of stacks of seven
// processes, and a bundle loads with a fraction of the CPU tsx spends resolving and
// transforming hundreds of files per process. Unlike the production bundle (prod-tree.ts),
// this one runs in place: npm packages are imported by the absolute path the service's own
// node_modules resolves them to, and import.meta.dirname/url keep their source values, so
// the code behaves exactly as from its sources (migrations, .proto files, artifacts).
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { BUNDLE_OPTIONS, SERVICES } from './prod-tree.js';

const REPO = path.resolve(import.meta.dirname, '..');
const RESOLVING = Symbol('resolving');

const inPlace: esbuild.Plugin = {
  name: 'in-place',
  setup(build) {
    // npm packages: external, at the file this checkout resolves them to.
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@hallmark/') || args.pluginData === RESOLVING) return undefined;
      const r = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: RESOLVING,
      });
      if (r.errors.length) return { errors: r.errors };
      return { path: r.path, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return { contents: source, loader: 'ts' };
      const contents = source
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: 'ts' };
    });
  },
};

/** Where devstack looks for a service's stack bundle. */
export const stackBundleOf = (svc: string) => path.join(REPO, 'services', svc, 'dist-stack', 'main.js');

export async function buildStackBundles(): Promise<number> {
  const started = Date.now();
  await Promise.all(
    SERVICES.map(async (svc) => {
      const outdir = path.dirname(stackBundleOf(svc));
      rmSync(outdir, { recursive: true, force: true });
      await esbuild.build({
        ...BUNDLE_OPTIONS,
        entryPoints: [path.join(REPO, 'services', svc, 'src', 'main.ts')],
        outdir,
        plugins: [inPlace],
        logLevel: 'warning',
      });
    }),
  );
  return Date.now() - started;
}
