// Re-encryption after a key rotation (HALLMARK_ENCRYPTION_KEYS: a new key prepended): every
// value at rest written by the kit Encryptor under an older key is rewritten under the newest.
//
// Columns are found, not listed: every text column of the database's public tables holding
// at least one value shaped like an Encryptor envelope (`v1.<key id>.<iv>.<tag>.<data>`),
// so a column added later is covered without touching this file. A value is only rewritten
// when it decrypts (GCM authenticates it: it is ours), and only when its key is not the
// newest, so a run is idempotent; each batch commits on its own and a row is rewritten only
// while it still holds the value read (`… AND col = $old`), so a run can be stopped at any
// point and run again (it resumes where the data says) while the services keep writing.
import pg, { type Pool } from 'pg';
import { parseArgs } from 'node:util';
import { SERVICE_NAMES } from './config.js';
import { Encryptor } from './crypto.js';
import { serviceDatabaseUrl } from './db.js';

/** An Encryptor envelope, as a PostgreSQL regular expression. */
export const ENVELOPE_PATTERN = '^v1\\.[0-9a-f]{8}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$';

export interface EncryptedColumn {
  table: string;
  column: string;
}

export interface ColumnReport extends EncryptedColumn {
  /** Values under the newest key after the run (or found so, with `check`). */
  current: number;
  /** Values rewritten under the newest key by this run. */
  reencrypted: number;
  /** Values still under an older key (only with `check`: nothing is rewritten). */
  stale: number;
  /** Envelope-shaped values that did not decrypt with any configured key (left untouched). */
  unreadable: number;
}

export interface ReencryptOptions {
  /** Count only: report what is under an older key, write nothing. */
  check?: boolean;
  batchSize?: number;
  onProgress?: (report: ColumnReport) => void;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Text columns of public tables that hold at least one envelope-shaped value. */
export async function findEncryptedColumns(pool: Pool): Promise<EncryptedColumn[]> {
  const { rows } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying')
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const found: EncryptedColumn[] = [];
  for (const { table_name: table, column_name: column } of rows) {
    const hit = await pool.query(`SELECT 1 FROM ${ident(table)} WHERE ${ident(column)} ~ $1 LIMIT 1`, [
      ENVELOPE_PATTERN,
    ]);
    if (hit.rowCount) found.push({ table, column });
  }
  return found;
}

/** Rewrites (or with `check`, counts) one column's values that are not under the newest key. */
export async function reencryptColumn(
  pool: Pool,
  enc: Encryptor,
  col: EncryptedColumn,
  opts: ReencryptOptions = {},
): Promise<ColumnReport> {
  const [t, c] = [ident(col.table), ident(col.column)];
  const report: ColumnReport = { ...col, current: 0, reencrypted: 0, stale: 0, unreadable: 0 };
  const batchSize = opts.batchSize ?? 500;
  // Rows not to select again this run: undecryptable ones (and, with `check`, counted ones).
  const skip: string[] = [];
  for (;;) {
    const { rows } = await pool.query<{ ctid: string; value: string }>(
      `SELECT ctid::text AS ctid, ${c} AS value FROM ${t}
        WHERE ${c} ~ $1 AND split_part(${c}, '.', 2) <> $2 AND NOT (ctid = ANY ($3::tid[]))
        LIMIT $4`,
      [ENVELOPE_PATTERN, enc.currentKeyId, skip, batchSize],
    );
    if (rows.length === 0) break;
    const updates: { ctid: string; old: string; value: string }[] = [];
    for (const row of rows) {
      try {
        const value = enc.reencrypt(row.value);
        if (value !== null) updates.push({ ctid: row.ctid, old: row.value, value });
      } catch {
        skip.push(row.ctid);
        report.unreadable++;
      }
    }
    if (opts.check) {
      report.stale += updates.length;
      if (rows.length < batchSize) break;
      skip.push(...updates.map((u) => u.ctid));
      continue;
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const u of updates) {
        // Only while the row still holds what was read: a concurrent write wins.
        const res = await client.query(`UPDATE ${t} SET ${c} = $1 WHERE ctid = $2::tid AND ${c} = $3`, [
          u.value,
          u.ctid,
          u.old,
        ]);
        report.reencrypted += res.rowCount ?? 0;
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    opts.onProgress?.(report);
  }
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${t} WHERE ${c} ~ $1 AND split_part(${c}, '.', 2) = $2`,
    [ENVELOPE_PATTERN, enc.currentKeyId],
  );
  report.current = Number(rows[0]!.n);
  return report;
}

/** Every encrypted column of one database. */
export async function reencryptDatabase(
  pool: Pool,
  enc: Encryptor,
  opts: ReencryptOptions = {},
): Promise<ColumnReport[]> {
  const reports: ColumnReport[] = [];
  for (const col of await findEncryptedColumns(pool))
    reports.push(await reencryptColumn(pool, enc, col, opts));
  return reports;
}

export interface ReencryptRun {
  /** The PostgreSQL server (DATABASE_URL). */
  serverUrl: string;
  /** HALLMARK_DATABASE_PREFIX: the databases are `<prefix>_<svc>`. */
  prefix: string;
  /** HALLMARK_ENCRYPTION_KEYS, newest first. */
  keys: string;
  services: readonly string[];
  check?: boolean;
  batchSize?: number;
  log?: (line: string) => void;
}

/** Every service database in turn (a missing one is skipped); the reports keyed by service. */
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
    let reports: ColumnReport[];
    try {
      reports = await reencryptDatabase(pool, enc, { check: run.check, batchSize: run.batchSize });
    } finally {
      await pool.end();
    }
    out[svc] = reports;
    if (reports.length === 0) log(`${svc.padEnd(12)} no encrypted values`);
    for (const r of reports)
      log(
        `${svc.padEnd(12)} ${`${r.table}.${r.column}`.padEnd(42)} current ${r.current}` +
          (run.check ? `, under an older key ${r.stale}` : `, re-encrypted now ${r.reencrypted}`) +
          (r.unreadable ? `, UNREADABLE ${r.unreadable}` : ''),
      );
  }
  return out;
}

/**
 * The command line: `[--check] [--service keys,bulk,…] [--batch 500]`, configured by
 * DATABASE_URL, HALLMARK_DATABASE_PREFIX (default hallmark) and HALLMARK_ENCRYPTION_KEYS.
 * Exit code 1 when a value did not decrypt, or (with --check) one is under an older key; 2 on
 * a usage error.
 */
export async function reencryptCli(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      check: { type: 'boolean', default: false },
      service: { type: 'string' },
      batch: { type: 'string', default: '500' },
    },
  });
  const services = values.service ? values.service.split(',').map((s) => s.trim()) : SERVICE_NAMES;
  const usage = [
    ...services
      .filter((s) => !(SERVICE_NAMES as readonly string[]).includes(s))
      .map((s) => `unknown service ${s} (one of ${SERVICE_NAMES.join(', ')})`),
    ...(env.DATABASE_URL ? [] : ['DATABASE_URL is not set']),
    ...(env.HALLMARK_ENCRYPTION_KEYS ? [] : ['HALLMARK_ENCRYPTION_KEYS is not set']),
  ];
  if (usage.length) {
    for (const line of usage) console.error(line);
    console.error('usage: reencrypt [--check] [--service keys,bulk,…] [--batch 500]');
    return 2;
  }
  const reports = await runReencrypt({
    serverUrl: env.DATABASE_URL!,
    prefix: env.HALLMARK_DATABASE_PREFIX ?? 'hallmark',
    keys: env.HALLMARK_ENCRYPTION_KEYS!,
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
    console.error(`${stale} value(s) still under an older key: run the re-encryption first`);
    return 1;
  }
  console.log(values.check ? 'every encrypted value is under the newest key' : 'done');
  return 0;
}
