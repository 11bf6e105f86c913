// Test wiring over the real PostgreSQL server: each test file gets its own database with
// the kit's and this service's migrations applied, and the real handlers on top of it.
import { expect } from '@jest/globals';
import {
  HallmarkError,
  newId,
  openDatabase,
  serviceDatabaseUrl,
  type CallInfo,
  type ErrorCode,
  type Pool,
} from '@hallmark/kit';
import { closeTestDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import path from 'node:path';
import pg from 'pg';
import { RedemptionsStore } from '../src/redemption-store.js';
import { createVouchersHandlers } from '../src/rpc.js';
import { VouchersService } from '../src/service.js';
import { VouchersStore } from '../src/store.js';

export const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', 'migrations');
export const CALL: CallInfo = { requestId: 'req_test', deadlineMs: Infinity };

export interface TestService {
  pool: Pool;
  vouchers: VouchersStore;
  service: VouchersService;
  api: ReturnType<typeof createVouchersHandlers>;
  /** Another pool on the same database: a second replica. The caller ends it. */
  openPool(max: number): Pool;
  close(): Promise<void>;
}

export async function startTestService(opts: { poolSize?: number } = {}): Promise<TestService> {
  const database = uniqueDatabaseName('vouchers');
  const pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS_DIR],
    max: opts.poolSize ?? 10,
  });
  const vouchers = new VouchersStore(pool);
  const service = new VouchersService(pool, vouchers, new RedemptionsStore(pool), { defaultCurrency: 'USD' });
  return {
    pool,
    vouchers,
    service,
    api: createVouchersHandlers(service),
    openPool: (max) =>
      new pg.Pool({ connectionString: serviceDatabaseUrl(TEST_DATABASE_SERVER, database), max }),
    close: () => closeTestDatabase(pool, database),
  };
}

export function principal(
  opts: { enterpriseId?: string; livemode?: boolean; actorId?: string } = {},
): Principal {
  return {
    enterprise_id: opts.enterpriseId ?? newId('enterprise'),
    livemode: opts.livemode ?? true,
    actor_id: opts.actorId ?? newId('apiKey'),
    actor_type: 'api_key',
    scopes: ['transactions.*'],
  };
}

/** Settles `p` and returns the HallmarkError it rejected with (fails the test otherwise). */
export async function errorOf(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    return err as HallmarkError;
  }
  throw new Error('expected a HallmarkError, but the call succeeded');
}

export async function expectError(
  p: Promise<unknown>,
  code: ErrorCode,
  param?: string,
): Promise<HallmarkError> {
  const err = await errorOf(p);
  expect({ code: err.code, param: err.param }).toEqual({ code, param });
  return err;
}

export interface OutboxEvent {
  type: string;
  enterprise_id: string | null;
  livemode: boolean;
  data: { object: Record<string, any>; order_id?: string };
}

export async function outboxEvents(pool: Pool, type?: string): Promise<OutboxEvent[]> {
  const { rows } = await pool.query<{ payload: OutboxEvent }>(
    `SELECT payload FROM outbox ${type ? 'WHERE type = $1' : ''} ORDER BY seq`,
    type ? [type] : [],
  );
  return rows.map((r) => r.payload);
}

export const inOneHour = () => new Date(Date.now() + 3600_000).toISOString();
