// `hallmark token` signs what the running stack accepts: HALLMARK_JWT_SECRET (the stack's own
// when it was started with one) wins over the data folder, and it never invents an
// enterprise or writes a data folder of its own — every token it printed was refused when it
// signed with a secret from a folder it had just created.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { JWT_SECRET_FINGERPRINT_FILE, secretFingerprint } from '@hallmark/devstack';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildCli } from './run.js';

let bin: string;
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-token-'));
  bin = buildCli(path.join(tmp, 'hallmark.js'));
});

/** Runs `hallmark token …` in a fresh empty folder; answers its output and that folder. */
function token(args: string[], env: Record<string, string> = {}) {
  const cwd = mkdtempSync(path.join(tmp, 'cwd-'));
  try {
    const stdout = execFileSync(process.execPath, [bin, 'token', ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, stdout: stdout.trim(), stderr: '', cwd };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr, cwd };
  }
}

function dataDir(secrets: { jwtSecret: string; demoEnterpriseId: string }): string {
  const dir = mkdtempSync(path.join(tmp, 'data-'));
  writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify({ ...secrets, encryptionKeys: '00' }));
  return dir;
}

/** The claims of an HS256 JWT, after checking its signature with `secret`. */
function claims(jwt: string, secret: string): Record<string, unknown> {
  const [head, body, sig] = jwt.split('.');
  const expected = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  if (sig !== expected) throw new Error('signed with another secret');
  return JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
}

describe('hallmark token', () => {
  it('signs with HALLMARK_JWT_SECRET from the environment over the data folder’s secret', () => {
    const dir = dataDir({ jwtSecret: 'b'.repeat(64), demoEnterpriseId: 'ent_demo0000000000000000000' });
    const r = token(['--sub', 'alice', '--role', 'admin'], {
      HALLMARK_JWT_SECRET: 'a'.repeat(64),
      HALLMARK_DATA_DIR: dir,
    });
    expect(r.code).toBe(0);
    expect(claims(r.stdout, 'a'.repeat(64))).toMatchObject({
      ent: 'ent_demo0000000000000000000',
      sub: 'alice',
      role: 'admin',
    });
  });

  it('without HALLMARK_JWT_SECRET signs with the data folder’s secret for its demo enterprise', () => {
    const dir = dataDir({ jwtSecret: 'c'.repeat(64), demoEnterpriseId: 'ent_demo1111111111111111111' });
    const r = token([], { HALLMARK_DATA_DIR: dir });
    expect(r.code).toBe(0);
    expect(claims(r.stdout, 'c'.repeat(64))).toMatchObject({ ent: 'ent_demo1111111111111111111' });
  });

  it('with neither a secret nor a data folder fails plainly and writes nothing', () => {
    const r = token(['--ent', 'ent_x']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('No signing secret: set HALLMARK_JWT_SECRET');
    expect(readdirSync(r.cwd)).toEqual([]);
  });

  it('never invents an enterprise: a secret without a data folder needs --ent', () => {
    const r = token([], { HALLMARK_JWT_SECRET: 'd'.repeat(64) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('No enterprise: pass --ent');
    expect(existsSync(path.join(r.cwd, '.hallmark'))).toBe(false);
    const ok = token(['--ent', 'ent_given00000000000000000'], { HALLMARK_JWT_SECRET: 'd'.repeat(64) });
    expect(claims(ok.stdout, 'd'.repeat(64))).toMatchObject({ ent: 'ent_given00000000000000000' });
  });

  it('refuses to sign with the stored secret for a stack started with HALLMARK_JWT_SECRET', () => {
    const dir = dataDir({ jwtSecret: 'e'.repeat(64), demoEnterpriseId: 'ent_demo2222222222222222222' });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, JWT_SECRET_FINGERPRINT_FILE), secretFingerprint('f'.repeat(64)));
    const r = token([], { HALLMARK_DATA_DIR: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('verifies sessions with the HALLMARK_JWT_SECRET it was started with');
    expect(token([], { HALLMARK_DATA_DIR: dir, HALLMARK_JWT_SECRET: 'f'.repeat(64) }).code).toBe(0);
  });
});
