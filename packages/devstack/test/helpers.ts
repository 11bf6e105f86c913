// Each test file works in its own throw-away data dir, with server output in log files there
// (keeps the jest output readable; the path is in any failure message).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDataDir(label: string): {
  dir: string;
  log: (name: string) => string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `hallmark-devstack-${label}-`));
  return {
    dir,
    log: (name) => join(dir, 'logs', `${name}.log`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
