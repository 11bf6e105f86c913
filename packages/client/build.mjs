// Builds the published form of @hallmark/client: dist/index.js (ESM, for Node ≥ 22) and
// dist/index.d.ts (one declaration file), by the workspace's scripts/build-published.mjs.
// `pnpm pack` runs it first (prepack).
import { build } from 'esbuild';
import { generateDtsBundle } from 'dts-bundle-generator';
import { buildPublished } from '../../scripts/build-published.mjs';

await buildPublished(import.meta.dirname, { build, generateDtsBundle });
