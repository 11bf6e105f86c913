// Test-only scanners for "no secret at rest or in logs": every row of every table of a
// stack's databases, and every file under a directory (logs, the NATS JetStream store),
// searched for given strings.
import { serviceDatabaseUrl } from '@hallmark/kit';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface Finding {
  /** `db.schema.table` or a file path. */
  where: string;
  /** Which needle (its label, never the value). */
  needle: string;
}

export interface DbScan {
  findings: Finding[];
  /** Tables scanned, with their row counts. */
  tables: Record<string, number>;
}

/** Every database whose name starts with `${prefix}_` on the server. */
export async function stackDatabases(serverUrl: string, prefix: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname',
      [`${prefix}\\_%`],
    );
    return rows.map((r) => r.datname);
  } finally {
    await admin.end();
  }
}

/**
 * Searches every row of every user table of `database` (all columns, as the row's JSON
 * text) for each needle, both as written and hex-encoded (a bytea column shows as hex).
 */
export async function scanDatabase(
  serverUrl: string,
  database: string,
  needles: Record<string, string>,
): Promise<DbScan> {
  const client = new pg.Client({ connectionString: serviceDatabaseUrl(serverUrl, database) });
  await client.connect();
  const findings: Finding[] = [];
  const tables: Record<string, number> = {};
  try {
    const { rows: list } = await client.query<{ schemaname: string; tablename: string }>(
      `SELECT schemaname, tablename FROM pg_tables
        WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    for (const { schemaname, tablename } of list) {
      const q = `SELECT row_to_json(t)::text AS row FROM ${client.escapeIdentifier(schemaname)}.${client.escapeIdentifier(tablename)} t`;
      const { rows } = await client.query<{ row: string }>(q);
      const where = `${database}.${schemaname}.${tablename}`;
      tables[where] = rows.length;
      for (const [label, value] of Object.entries(needles)) {
        const hex = Buffer.from(value).toString('hex');
        if (rows.some((r) => r.row.includes(value) || r.row.includes(hex)))
          findings.push({ where, needle: label });
      }
    }
  } finally {
    await client.end();
  }
  return { findings, tables };
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return [];
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
}

/** Searches every file under `dir` (bytes, so binary stores too) for each needle. */
export function scanFiles(
  dir: string,
  needles: Record<string, string>,
): { findings: Finding[]; files: string[] } {
  const files = filesUnder(dir);
  const findings: Finding[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const [label, value] of Object.entries(needles)) {
      if (bytes.includes(value)) findings.push({ where: file, needle: label });
    }
  }
  return { findings, files };
}
