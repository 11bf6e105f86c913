// `hallmark verify <bundle.json> --rpc <url>`: the built CLI checks a proof bundle against anvil
// with no Hallmark process (the bundle fixture of @hallmark/verify: the real contract, a minted
// batch, a fresh issuer key), prints every check plainly, and exits 0 only when verified.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildFixture, IMAGE, type Fixture } from '../../verify/test/fixture.js';
import { buildCli } from './run.js';

let fx: Fixture;
let bin: string;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-cli-verify-'));
  bin = buildCli(path.join(tmp, 'hallmark.js'));
  fx = await buildFixture();
}, 120_000);

afterAll(async () => {
  await fx?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function write(name: string, content: unknown): string {
  const file = path.join(tmp, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function hallmark(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH, HOME: tmp }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('hallmark verify', () => {
  it('prints each check of a genuine bundle and exits 0', async () => {
    const r = await hallmark(['verify', write('good.json', fx.bundle(0)), '--rpc', fx.anvil.rpcUrl]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const name of [
      'bundle_format',
      'credential_signature',
      'metadata_hash',
      'merkle_proof',
      'token',
      'status_list',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^passed +${name} `, 'm'));
    }
    expect(r.stdout).toMatch(/^skipped +image +No image file given/m);
    expect(r.stdout).toContain('VERIFIED: a genuine certificate');
  });

  it('--json prints the report; --image checks the certified image', async () => {
    const r = await hallmark([
      'verify',
      write('good2.json', fx.bundle(0)),
      '--rpc',
      fx.anvil.rpcUrl,
      '--image',
      write('watch.png', IMAGE.toString('latin1')),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      verified: boolean;
      status: string;
      checks: { name: string; result: string }[];
    };
    expect(report).toMatchObject({ verified: true, status: 'valid' });
    expect(report.checks.find((c) => c.name === 'image')?.result).toBe('passed');
  });

  it('a tampered bundle exits 1 and names the failed checks', async () => {
    const bundle = fx.bundle(1);
    bundle.metadata.metadata.artist = 'Not Ada';
    bundle.credential.credentialSubject.metadata = { ...bundle.metadata.metadata };
    const r = await hallmark(['verify', write('tampered.json', bundle), '--rpc', fx.anvil.rpcUrl]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^failed +credential_signature /m);
    expect(r.stdout).toMatch(/^failed +merkle_proof /m);
    expect(r.stdout).toContain('NOT VERIFIED');
  });

  it('another image exits 1', async () => {
    const r = await hallmark([
      'verify',
      write('good3.json', fx.bundle(0)),
      '--rpc',
      fx.anvil.rpcUrl,
      '--image',
      write('other.png', 'not the watch'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^failed +image /m);
  });

  it('a file that is no bundle, or no file, exits non-zero with a clear message', async () => {
    const bad = await hallmark(['verify', write('bad.json', '{"hello": 1}'), '--rpc', fx.anvil.rpcUrl]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('Not a Hallmark proof bundle');
    const missing = await hallmark(['verify', path.join(tmp, 'nope.json'), '--rpc', fx.anvil.rpcUrl]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
    const noRpc = await hallmark(['verify', path.join(tmp, 'good.json')]);
    expect(noRpc.code).toBe(2);
  });
});
