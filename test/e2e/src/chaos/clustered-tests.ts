// Whether the clustered tests run (chaos-clustered, chaos-lost-write): they need Debian's
// etcd-server, patroni and haproxy, which `debianBinary` installs when we are root (CI and the
// dev machines). HALLMARK_CLUSTERED_TESTS=1 insists (a missing engine then fails the test with
// the apt command to run), =0 skips; unset, they run wherever the engines are or can be had.
import { debianBinariesAvailable } from '@hallmark/devstack';

export const CLUSTERED_ENGINE_BINARIES = ['etcd', 'patroni', 'haproxy'] as const;

export function clusteredTestsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const set = env.HALLMARK_CLUSTERED_TESTS;
  if (set === '1') return true;
  if (set === '0') return false;
  const ok = debianBinariesAvailable(CLUSTERED_ENGINE_BINARIES);
  if (!ok)
    console.warn(
      'clustered tests skipped: etcd, patroni or haproxy is missing and we are not root to install them ' +
        '(sudo apt-get install etcd-server patroni haproxy, or HALLMARK_CLUSTERED_TESTS=1 to insist)',
    );
  return ok;
}
