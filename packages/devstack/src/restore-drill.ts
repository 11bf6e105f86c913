// The restore drill (docs/runbooks/backup-and-restore.md): proves a backup restores. It reads
// a few certificates through the running stack's gateway, dumps every service database with
// `pg_dump -Fc` (the backup CronJob's format), restores each into a fresh database under a new
// prefix with `pg_restore`, starts a second stack (every service and a gateway, its own NATS)
// on the restored databases with the same secrets and chain, and reads the same certificates
// through it: each must be served as before. It reports how long each step took (the RTO of
// this size of data), then stops that stack and drops the restored databases.
import { SERVICE_NAMES } from '@hallmark/kit';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { which } from './binaries.js';
import { startStack } from './stack.js';

const run = promisify(execFile);

export interface DrillOptions {
  /** The server holding the stack's databases (any database on it). */
  databaseUrl: string;
  /** The stack's database prefix: its databases are `<prefix>_<svc>`. */
  prefix: string;
  /** The running stack's gateway: the certificates are read there before the backup. */
  gatewayUrl: string;
  /** What the restored stack runs with: the stack's secrets, chain and public URL (its env). */
  env: Record<string, string>;
  /** Certificates to check; default: up to `sample` minted ones, newest first. */
  certificateIds?: string[];
  sample?: number;
  /** Where the dumps go (kept: they are a backup); default a temporary directory, removed. */
  backupDir?: string;
  /** Leave the restored databases (for a look around). */
  keep?: boolean;
  log?: (line: string) => void;
}

export interface DrillResult {
  restoredPrefix: string;
  /** Each certificate: served by the restored stack exactly as by the original. */
  certificates: { id: string; ok: boolean; problem?: string }[];
  ok: boolean;
  bytes: number;
  /** Milliseconds of each step; `dump` is the backup, the rest together the restore. */
  timings: { dump: number; restore: number; start: number; verify: number };
  pgDump: string;
}

/** pg_dump and pg_restore of a major version the server's or newer (the server's first). */
export async function postgresClientFor(
  serverMajor: number,
): Promise<{ pgDump: string; pgRestore: string; major: number }> {
  const root = '/usr/lib/postgresql';
  const dirs = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter((v) => Number.isInteger(v) && v >= serverMajor)
        .sort((a, b) => a - b)
        .map((v) => path.join(root, String(v), 'bin'))
    : [];
  const onPath = which('pg_dump');
  for (const dir of [...dirs, ...(onPath ? [path.dirname(onPath)] : [])]) {
    const pgDump = path.join(dir, 'pg_dump');
    const pgRestore = path.join(dir, 'pg_restore');
    if (!existsSync(pgDump) || !existsSync(pgRestore)) continue;
    const { stdout } = await run(pgDump, ['--version']);
    const major = Number(/(\d+)(?:\.\d+)?/.exec(stdout)?.[1]);
    if (major >= serverMajor) return { pgDump, pgRestore, major };
  }
  throw new Error(
    `no pg_dump/pg_restore for PostgreSQL ${serverMajor} or newer (apt-get install postgresql-client-${serverMajor})`,
  );
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrlOf(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const readCertificate = async (gatewayUrl: string, id: string): Promise<Read> => {
  const res = await fetch(`${gatewayUrl}/api/certificate/public/${encodeURIComponent(id)}`);
  return { status: res.status, body: await res.text() };
};

type Read = { status: number; body: string };

/** What is wrong with a certificate's read after the restore, given the one before; none: undefined. */
export function readProblem(was: Read, now: Read): string | undefined {
  if (was.status !== 200) return `not served before the backup (${was.status})`;
  if (now.status !== was.status) return `served ${now.status}, was ${was.status}`;
  if (now.body !== was.body) return `served another body: ${now.body.slice(0, 200)}`;
  return undefined;
}

export async function runRestoreDrill(o: DrillOptions): Promise<DrillResult> {
  const log = o.log ?? ((line: string) => console.log(`restore-drill: ${line}`));
  const v = (await query<{ server_version_num: string }>(o.databaseUrl, 'SHOW server_version_num'))[0]!
    .server_version_num;
  const client = await postgresClientFor(Math.floor(Number(v) / 10000));
  log(`server ${v}, ${client.pgDump} (${client.major})`);

  const source = (svc: string) => databaseUrlOf(o.databaseUrl, `${o.prefix}_${svc}`);
  const ids =
    o.certificateIds ??
    (
      await query<{ id: string }>(
        source('certificates'),
        `SELECT id FROM certificates WHERE status = 'minted' ORDER BY created_at DESC LIMIT $1`,
        [o.sample ?? 5],
      )
    ).map((r) => r.id);
  if (ids.length === 0) throw new Error(`no minted certificate in ${o.prefix}_certificates to check`);
  const before = new Map<string, { status: number; body: string }>();
  for (const id of ids) before.set(id, await readCertificate(o.gatewayUrl, id));

  // The backup: one dump per service database.
  const dir = o.backupDir ?? mkdtempSync(path.join(tmpdir(), 'hallmark-backup-'));
  mkdirSync(dir, { recursive: true });
  const stamp = Date.now().toString(36);
  let t = Date.now();
  for (const svc of SERVICE_NAMES)
    await run(client.pgDump, [
      '-Fc',
      '--no-owner',
      '-d',
      source(svc),
      '-f',
      path.join(dir, `${o.prefix}_${svc}.dump`),
    ]);
  const dump = Date.now() - t;
  const bytes = SERVICE_NAMES.reduce(
    (n, svc) => n + statSync(path.join(dir, `${o.prefix}_${svc}.dump`)).size,
    0,
  );
  log(`dumped ${SERVICE_NAMES.length} databases (${bytes} bytes) in ${dump} ms to ${dir}`);

  // The restore: fresh databases under a new prefix (≤ 63 characters with the service name).
  const restoredPrefix = `${o.prefix.slice(0, 30)}_r${stamp}`;
  const restored = (svc: string) => `${restoredPrefix}_${svc}`;
  t = Date.now();
  for (const svc of SERVICE_NAMES) {
    await query(o.databaseUrl, `CREATE DATABASE "${restored(svc)}"`);
    await run(client.pgRestore, [
      '--no-owner',
      '--exit-on-error',
      '-d',
      databaseUrlOf(o.databaseUrl, restored(svc)),
      path.join(dir, `${o.prefix}_${svc}.dump`),
    ]);
  }
  const restore = Date.now() - t;
  log(`restored into ${restoredPrefix}_* in ${restore} ms`);

  const dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-drill-'));
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  try {
    t = Date.now();
    stack = await startStack({
      dataDir,
      databaseUrl: o.databaseUrl,
      databasePrefix: restoredPrefix,
      forceSpawnNats: true,
      logToFiles: true,
      logLevel: 'warn',
      env: {
        ...pick(o.env, [
          'HALLMARK_JWT_SECRET',
          'HALLMARK_ENCRYPTION_KEYS',
          'HALLMARK_PUBLIC_URL',
          'HALLMARK_CHAIN_RPC_URL',
          'HALLMARK_CHAIN_ID',
          'HALLMARK_RELAYER_KEY',
          'HALLMARK_CONTRACT_ADDRESS',
        ]),
        // Media are not in the databases: the archived images stay where they are (a
        // directory, or the bucket), read by the restored stack as by the original.
        ...(o.env.HALLMARK_MEDIA_DIR || o.env.HALLMARK_DATA_DIR
          ? { HALLMARK_MEDIA_DIR: o.env.HALLMARK_MEDIA_DIR ?? path.join(o.env.HALLMARK_DATA_DIR!, 'media') }
          : {}),
      },
    });
    const start = Date.now() - t;
    log(`stack on the restored databases ready in ${start} ms (${stack.gatewayUrl})`);
    t = Date.now();
    const certificates = [];
    for (const id of ids) {
      const was = before.get(id)!;
      const now = await readCertificate(stack.gatewayUrl, id);
      const problem = readProblem(was, now);
      certificates.push({ id, ok: !problem, ...(problem ? { problem } : {}) });
      log(`${id}: ${problem ?? 'served as before'}`);
    }
    const verify = Date.now() - t;
    const ok = certificates.every((c) => c.ok);
    log(`${ok ? 'PASSED' : 'FAILED'}: ${certificates.filter((c) => c.ok).length}/${ids.length} certificates`);
    return {
      restoredPrefix,
      certificates,
      ok,
      bytes,
      timings: { dump, restore, start, verify },
      pgDump: client.pgDump,
    };
  } finally {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (!o.backupDir) rmSync(dir, { recursive: true, force: true });
    if (!o.keep)
      for (const svc of SERVICE_NAMES)
        await query(o.databaseUrl, `DROP DATABASE IF EXISTS "${restored(svc)}" WITH (FORCE)`);
  }
}

const pick = (env: Record<string, string>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => env[k] !== undefined).map((k) => [k, env[k]!]));
