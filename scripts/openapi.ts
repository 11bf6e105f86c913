// `pnpm lint:openapi`: the document the gateway serves, linted by the field's own tools —
// Redocly (recommended ruleset: 0 errors, 0 warnings) and Spectral (spectral:oas + the OWASP
// API Security ruleset, .spectral.yaml: 0 errors). `--out <file>` only writes the document.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openApiDocument } from '@hallmark/gateway/openapi-dump';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const doc = await openApiDocument();
const file =
  outAt >= 0
    ? path.resolve(args[outAt + 1]!)
    : path.join(mkdtempSync(path.join(tmpdir(), 'hm-openapi-')), 'openapi.json');
writeFileSync(file, JSON.stringify(doc, null, 2));
if (outAt >= 0) {
  console.log(`openapi: wrote ${file}`);
  process.exit(0);
}
const run = (cmd: string, argv: string[]) =>
  spawnSync(bin(cmd), argv, { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;
const redocly = run('redocly', ['lint', '--format', 'stylish', '--max-problems', '500', file]);
const spectral = run('spectral', [
  'lint',
  '--ruleset',
  path.join(root, '.spectral.yaml'),
  '--fail-severity',
  'error',
  file,
]);
console.log(
  `\nopenapi: redocly ${redocly === 0 ? 'passed' : 'FAILED'}, spectral ${spectral === 0 ? 'passed' : 'FAILED'}`,
);
process.exit(redocly === 0 && spectral === 0 ? 0 : 1);
