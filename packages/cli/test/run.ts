// Runs the built `hallmark` (dist/hallmark.js, plain Node) as a subprocess, and drives it in
// a tmux pane of its own server (socket) so the live bars render as a person sees them.
import { png, zipOf } from '@hallmark/e2e/bulk';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export const pkgDir = path.resolve(import.meta.dirname, '..');
export const bin = path.join(pkgDir, 'dist', 'hallmark.js');

/** Builds dist/hallmark.js, or the bundle at `outfile` (a test's own, so parallel files never share one). */
export function buildCli(outfile?: string): string {
  execFileSync(process.execPath, ['build.mjs', ...(outfile ? [outfile] : [])], { cwd: pkgDir });
  return outfile ?? bin;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function hallmark(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 180_000,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hallmark ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** A tmux server on its own socket: one detached 160×12 pane (a job bar is up to ~120 columns) running `command`. */
export function tmuxPane(socket: string, command: string, env: Record<string, string>) {
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  tmux(
    'new-session',
    '-d',
    '-x',
    '160',
    '-y',
    '12',
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    `${command}; echo "[exit $?]"; sleep 60`,
  );
  return {
    capture: () => tmux('capture-pane', '-p'),
    keys: (...k: string[]) => tmux('send-keys', ...k),
    kill: () => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}

const HEADER = 'name,description,category,recipientEmail,recipientName,imageFile';

/** A CSV of `rows` watches under `dir`, each naming its image in the ZIP beside it; `badRow` has a bad e-mail. */
export async function csvWithZip(dir: string, name: string, rows: number, badRow?: number) {
  const lines = [HEADER];
  const images: { name: string; data: Buffer }[] = [];
  for (let r = 1; r <= rows; r++) {
    const email = r === badRow ? 'not-an-email' : `owner${r}@example.com`;
    lines.push(`Watch ${r},"Hand-made, No. ${r}",Watches,${email},Owner ${r},${r}.png`);
    images.push({ name: `${r}.png`, data: png(`${name}-${r}`) });
  }
  const csv = path.join(dir, `${name}.csv`);
  const zip = path.join(dir, `${name}.zip`);
  writeFileSync(csv, lines.join('\n'));
  writeFileSync(zip, await zipOf(images));
  return { csv, zip };
}
