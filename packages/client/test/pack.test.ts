// @hallmark/client installs as a package and imports as its README says: `pnpm pack` (which
// builds dist/ first), the tarball installed into a fresh folder outside the workspace, then
// imported by plain Node ESM and type-checked by tsc against the declarations it ships. From
// the checkout, Node 22 answered ERR_MODULE_NOT_FOUND …/src/client.js.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { installPacked, run } from './packed.js';

const root = path.resolve(import.meta.dirname, '../../..');
let app: string;
let tarball: string;

beforeAll(() => {
  ({ tarball, app } = installPacked());
}, 120_000);

describe('@hallmark/client from its packed tarball', () => {
  it('holds only the built files, and names no workspace package among its dependencies', () => {
    const files = run('tar', ['tzf', tarball], app).trim().split('\n').sort();
    expect(files).toEqual([
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
    ]);
    const manifest = JSON.parse(run('tar', ['xzf', tarball, '-O', 'package/package.json'], app)) as {
      exports: unknown;
      dependencies: Record<string, string>;
    };
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    for (const spec of Object.values(manifest.dependencies)) expect(spec).not.toMatch(/^workspace:/);
  });

  it('imports in plain Node ESM, and its webhook check verifies a signed body', () => {
    const secret = 'a'.repeat(64);
    const body = JSON.stringify({ event: 'bulk.job.completed', jobId: 'job_1' });
    writeFileSync(
      path.join(app, 'main.mjs'),
      `import { Hallmark, HallmarkError, lists, verifyWebhook, watchJob } from '@hallmark/client';
const hm = new Hallmark({ baseUrl: 'http://127.0.0.1:9', apiKey: 'pk_test_x' });
const event = verifyWebhook(${JSON.stringify(body)}, { 'x-webhook-signature': ${JSON.stringify(
        createHmac('sha256', secret).update(body).digest('hex'),
      )} }, ${JSON.stringify(secret)});
const err = await hm.get('/api/v1/vouchers').catch((e) => e);
console.log(process.versions.node.split('.')[0], typeof lists, typeof watchJob, event.jobId, err instanceof HallmarkError, err.type);
`,
    );
    const out = run(process.execPath, ['main.mjs'], app).trim();
    expect(Number(out.split(' ')[0])).toBeGreaterThanOrEqual(22);
    expect(out.split(' ').slice(1).join(' ')).toBe('function function job_1 true connection_error');
  });

  it('its types resolve: a typed call compiles and a wrong path or body does not', () => {
    writeFileSync(
      path.join(app, 'typed.ts'),
      `import { Hallmark, HallmarkError, downloadResults, type ResultsDownload, type Schemas } from '@hallmark/client';
const hm = new Hallmark();
export async function main(): Promise<string> {
  const v = await hm.post('/api/v1/vouchers', { body: { code: 'SPRING25', type: 'percentage', value: 25 } });
  const code: string = v.code;
  const status: Schemas['Voucher']['status'] = v.status;
  const file: ResultsDownload = await downloadResults(hm, 'job_1', 'zip');
  const size: number | undefined = file.totalBytes;
  // @ts-expect-error no such path
  await hm.get('/api/v1/no-such-thing');
  // @ts-expect-error a voucher's type is percentage or fixed_amount
  await hm.post('/api/v1/vouchers', { body: { code: 'X', type: 'half', value: 1 } });
  const e: HallmarkError | undefined = undefined;
  return code + status + String(size) + String(e);
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
          lib: ['es2023'],
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    let out = '';
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
    } catch (err) {
      out = String((err as { stdout: string }).stdout);
    }
    expect(out).toBe('');
  }, 60_000);
});
