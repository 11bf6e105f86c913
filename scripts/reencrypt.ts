// `pnpm hallmark reencrypt [--check] [--service keys,bulk,…] [--batch 500]`
// After a new key was prepended to HALLMARK_ENCRYPTION_KEYS (and every service restarted
// with the new list), rewrites every value encrypted under an older key under the newest one,
// in every service database (<prefix>_<svc>). Idempotent and resumable (packages/kit/src/
// reencrypt.ts). `--check` writes nothing and exits 1 while any value is still under an older
// key or does not decrypt: run it before removing the old key.
// Environment: DATABASE_URL (the server; default: the local one), HALLMARK_DATABASE_PREFIX
// (default hallmark), HALLMARK_ENCRYPTION_KEYS (default: the dev stack's, from .hallmark/).
import { loadOrCreateSecrets, SYSTEM_POSTGRES_URL } from '@hallmark/devstack';
import { Encryptor, SERVICE_NAMES, serviceDatabaseUrl } from '@hallmark/kit';
import { reencryptDatabase, type ColumnReport } from '@hallmark/kit/reencrypt';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

export interface ReencryptRun {
  serverUrl: string;
  prefix: string;
  keys: string;
  services: readonly string[];
  check?: boolean;
  batchSize?: number;
  log?: (line: string) => void;
}

/** Runs over every service database; returns the per-column reports, keyed by service. */
export async function runReencrypt(run: ReencryptRun): Promise<Record<string, ColumnReport[]>> {
  const enc = new Encryptor(run.keys);
  const log = run.log ?? console.log;
  log(
    `${run.check ? 'checking' : 're-encrypting'} under key ${enc.currentKeyId} (the first of HALLMARK_ENCRYPTION_KEYS)`,
  );
  const admin = new pg.Client({ connectionString: serviceDatabaseUrl(run.serverUrl, 'postgres') });
  await admin.connect();
  const existing = new Set(
    (await admin.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname),
  );
  await admin.end();
  const out: Record<string, ColumnReport[]> = {};
  for (const svc of run.services) {
    const database = `${run.prefix}_${svc}`;
    if (!existing.has(database)) {
      log(`${svc.padEnd(12)} no database ${database}: skipped`);
      continue;
    }
    const pool = new pg.Pool({ connectionString: serviceDatabaseUrl(run.serverUrl, database), max: 2 });
    try {
      out[svc] = await reencryptDatabase(pool, enc, { check: run.check, batchSize: run.batchSize });
    } finally {
      await pool.end();
    }
    if (out[svc].length === 0) log(`${svc.padEnd(12)} no encrypted values`);
    for (const r of out[svc])
      log(
        `${svc.padEnd(12)} ${`${r.table}.${r.column}`.padEnd(42)} current ${r.current}` +
          (run.check ? `, under an older key ${r.stale}` : `, re-encrypted now ${r.reencrypted}`) +
          (r.unreadable ? `, UNREADABLE ${r.unreadable}` : ''),
      );
  }
  return out;
}

export async function reencryptCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      check: { type: 'boolean', default: false },
      service: { type: 'string' },
      batch: { type: 'string', default: '500' },
    },
  });
  const dataDir = path.resolve(process.env.HALLMARK_DATA_DIR ?? '.hallmark');
  const services = values.service ? values.service.split(',').map((s) => s.trim()) : SERVICE_NAMES;
  for (const s of services)
    if (!(SERVICE_NAMES as readonly string[]).includes(s)) throw new Error(`unknown service ${s}`);
  const reports = await runReencrypt({
    serverUrl: process.env.DATABASE_URL ?? SYSTEM_POSTGRES_URL,
    prefix: process.env.HALLMARK_DATABASE_PREFIX ?? 'hallmark',
    keys: process.env.HALLMARK_ENCRYPTION_KEYS ?? loadOrCreateSecrets(dataDir).encryptionKeys,
    services,
    check: values.check,
    batchSize: Number(values.batch),
  });
  const all = Object.values(reports).flat();
  const unreadable = all.reduce((n, r) => n + r.unreadable, 0);
  const stale = all.reduce((n, r) => n + r.stale, 0);
  if (unreadable) {
    console.error(
      `${unreadable} value(s) did not decrypt with any configured key: put the key they were written with back into HALLMARK_ENCRYPTION_KEYS`,
    );
    return 1;
  }
  if (values.check && stale) {
    console.error(`${stale} value(s) still under an older key: run 'pnpm hallmark reencrypt' first`);
    return 1;
  }
  console.log(values.check ? 'every encrypted value is under the newest key' : 'done');
  return 0;
}
