// @hallmark/verify installs as a package and verifies with nothing of Hallmark: `pnpm pack`
// (which builds dist/ first), the tarball installed into a fresh folder outside the workspace,
// imported by plain Node ESM and type-checked by tsc against the declarations it ships.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const pkgDir = path.resolve(import.meta.dirname, '..');
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let app: string;
let tarball: string;

beforeAll(() => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-verify-pack-'));
  run('pnpm', ['pack', '--pack-destination', tmp], pkgDir);
  tarball = path.join(
    tmp,
    readdirSync(tmp).find((f) => f.endsWith('.tgz'))!,
  );
  app = path.join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({
      name: 'app',
      private: true,
      type: 'module',
      dependencies: { '@hallmark/verify': `file:${tarball}` },
    }),
  );
  run('pnpm', ['install', '--offline'], app);
}, 180_000);

describe('@hallmark/verify from its packed tarball', () => {
  it('holds the built files and the static verifier page, and depends on no Hallmark package', () => {
    const files = run('tar', ['tzf', tarball], app).trim().split('\n').sort();
    expect(files).toEqual([
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
      'package/static/verifier.html',
    ]);
    const manifest = JSON.parse(run('tar', ['xzf', tarball, '-O', 'package/package.json'], app)) as {
      exports: unknown;
      dependencies: Record<string, string>;
    };
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    for (const [name, spec] of Object.entries(manifest.dependencies)) {
      expect(name).not.toMatch(/^@hallmark\//);
      expect(spec).toMatch(/^\d+\.\d+\.\d+$/); // exact pins
    }
  });

  it('imports in plain Node ESM: the context, the hash and a clear report for a file that is no bundle', () => {
    writeFileSync(
      path.join(app, 'main.mjs'),
      `import { HALLMARK_CONTEXT, metadataHashOf, verifyBundle, staticDocumentLoader } from '@hallmark/verify';
const report = await verifyBundle({ format: 'nope' }, { rpcUrl: 'http://127.0.0.1:9' });
const ctx = await staticDocumentLoader('https://www.w3.org/ns/credentials/v2');
console.log(HALLMARK_CONTEXT.tokenId, metadataHashOf('Silver Ring', null, { name: 'Silver Ring', artist: 'Ada' }), report.status, report.checks[0].name, typeof ctx.document);
`,
    );
    expect(run(process.execPath, ['main.mjs'], app).trim()).toBe(
      'https://hallmark.dev/ns#tokenId 0x5c82d210acca8f8602852b3a6c221c0753d164a960859411f2af37593f6aa83c invalid bundle_format object',
    );
  });

  it('its types resolve: a typed call compiles and a wrong status does not', () => {
    writeFileSync(
      path.join(app, 'typed.ts'),
      `import { verifyBundle, type VerificationReport, type Check } from '@hallmark/verify';
export async function main(bundle: unknown): Promise<string> {
  const r: VerificationReport = await verifyBundle(bundle, { rpcUrl: 'http://127.0.0.1:8545', image: new Uint8Array() });
  const first: Check | undefined = r.checks[0];
  // @ts-expect-error no such status
  const bad: VerificationReport['status'] = 'maybe';
  return r.status + String(first?.result) + String(bad);
}
`,
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          lib: ['es2023', 'dom'],
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files: ['typed.ts'],
      }),
    );
    let out = '';
    try {
      run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app);
    } catch (err) {
      out = String((err as { stdout: string }).stdout);
    }
    expect(out).toBe('');
  }, 60_000);
});
