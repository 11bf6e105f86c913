// Bundles the CLI (with @hallmark/client and the dev-token helpers) into one ESM file that
// plain Node runs: dist/hallmark.js. The client is also emitted on its own for Node ESM users.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/bin.ts'],
  outfile: 'dist/hallmark.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // CommonJS dependencies (commander, cli-progress) call require() for Node builtins.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
