// @hallmark/client as a user installs it: `pnpm pack` (which builds dist/ first), then the
// tarball installed into a fresh folder outside the workspace, its published dependencies
// taken offline from the store the workspace install filled. Used by pack.test.ts and by the
// README walk (test/e2e/test/readme-walk.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const pkgDir = path.resolve(import.meta.dirname, '..');

export const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Packs the client and installs it into `<tmp>/app`; answers both paths. */
export function installPacked(): { tarball: string; app: string } {
  const tmp = mkdtempSync(path.join(tmpdir(), 'hallmark-client-pack-'));
  run('pnpm', ['pack', '--pack-destination', tmp], pkgDir);
  const tarball = path.join(
    tmp,
    readdirSync(tmp).find((f) => f.endsWith('.tgz'))!,
  );
  const app = path.join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({
      name: 'app',
      private: true,
      type: 'module',
      dependencies: { '@hallmark/client': `file:${tarball}` },
    }),
  );
  run('pnpm', ['install', '--offline'], app);
  return { tarball, app };
}
