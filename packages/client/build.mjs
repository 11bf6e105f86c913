// Emits the client as one ESM file plain Node imports (dist/index.js); TypeScript users in
// this workspace import the sources.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
});
