// An API key given as `--api-key` never reaches the terminal whole: `pnpm hallmark` used to
// echo its command line (the key with it) to stderr before the CLI even ran. The workspace
// sets pnpm's loglevel to warn (pnpm-workspace.yaml), and the CLI shows keys masked.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { maskKey } from '../src/context.js';

const root = path.resolve(import.meta.dirname, '../../..');

describe('an API key on the command line', () => {
  it('`pnpm hallmark --api-key …` prints neither the key nor the command line carrying it', () => {
    const key = `pk_test_${'K'.repeat(36)}wxyz`;
    const r = spawnSync(
      'pnpm',
      ['hallmark', '--api-key', key, '--base-url', 'http://127.0.0.1:9', 'vouchers', 'list'],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, HALLMARK_CONFIG: path.join(root, '.hallmark-test', 'no-config.json') },
      },
    );
    expect(r.stderr).toContain('code: connection_failed');
    expect(r.stdout + r.stderr).not.toContain(key);
  }, 60_000);

  it('is shown as its mode prefix and last four characters', () => {
    expect(maskKey(`pk_live_${'a'.repeat(36)}WXYZ`)).toBe('pk_live_…WXYZ');
    expect(maskKey('pk_test_short')).toBe('pk_test_…');
    expect(maskKey('not-a-key-at-all-1234')).toBe('…1234');
  });
});
