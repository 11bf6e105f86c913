// Bundles the CLI (with @hallmark/client and the dev-token helpers) into one ESM file that
// plain Node runs: dist/hallmark.js (or the path given as the first argument, for tests).
import { build } from 'esbuild';
import process from 'node:process';

await build({
  entryPoints: ['src/bin.ts'],
  outfile: process.argv[2] ?? 'dist/hallmark.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // @hallmark/client from its sources (its `hallmark-source` export), not a dist/ of some age.
  conditions: ['hallmark-source'],
  // CommonJS dependencies (commander, cli-progress) call require() for Node builtins.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
