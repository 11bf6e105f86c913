// The claim repair pass runs every few seconds for as long as the service runs: its queries read
// open claims through their own index, never the whole table (50,000 unclaimed vouchers of a
// bulk job once made it 20 ms a pass) nor every claim ever made.
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { openDatabase, type Pool } from '@hallmark/kit';
import {
  closeTestDatabase,
  planAtScale,
  TEST_DATABASE_SERVER,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import { CLAIMS_TO_REPAIR, SETTLE_CONFIRMED_CLAIMS } from '../src/certificate-vouchers/claim-store.js';

let database: string;
let pool: Pool;

beforeAll(async () => {
  database = uniqueDatabaseName('certificates');
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
    max: 2,
  });
});

afterAll(async () => {
  await closeTestDatabase(pool, database);
});

it('finds claims to repair, and settles confirmed ones, through the open-claims index, never by reading every voucher', async () => {
  for (const [sql, params] of [
    [CLAIMS_TO_REPAIR, [50]],
    [SETTLE_CONFIRMED_CLAIMS, []],
  ] as const) {
    const plan = await planAtScale(pool, sql, [...params]);
    expect(plan).toContain('certificate_vouchers_open_claims');
    // Neither a scan of the table under another index.
    expect(plan).not.toMatch(/Scan using certificate_vouchers_(pkey|enterprise|request|certificate)/);
  }
});
