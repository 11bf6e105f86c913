// Shared setup for the integration tests: a fresh database on the real PostgreSQL server
// per test file, the store on a movable clock, the gRPC handlers, and principals.
import { HallmarkError, newId, openDatabase, type Pool } from '@hallmark/kit';
import { dropDatabase, TEST_DATABASE_SERVER, uniqueDatabaseName } from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { CreateKeyRequest } from '@hallmark/proto/keys/v1/keys';
import path from 'node:path';
import type { LogoArchive } from '../src/profile/logo-archive.js';
import { createProofCheck, type ProofCheck } from '../src/profile/proof-fetch.js';
import { ProfileService } from '../src/profile/service.js';
import { createKeysHandlers } from '../src/rpc.js';
import { KeysService } from '../src/service.js';

export const MIGRATIONS = path.join(import.meta.dirname, '..', 'migrations');

export interface Harness {
  pool: Pool;
  store: KeysService;
  profiles: ProfileService;
  rpc: ReturnType<typeof createKeysHandlers>;
  clock: { now: number; advance(ms: number): void };
  close(): Promise<void>;
}

/** Without a media store: a save with a logo fails (profile.test.ts serves one over gRPC). */
const noLogoArchive: LogoArchive = async () => {
  throw new Error('this harness has no media store to archive a logo');
};

export async function openHarness(
  prefix: string,
  proofCheck?: ProofCheck,
  archiveLogo: LogoArchive = noLogoArchive,
): Promise<Harness> {
  const database = uniqueDatabaseName(prefix);
  const pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [MIGRATIONS],
  });
  const clock = {
    now: Date.now(),
    advance(ms: number) {
      this.now += ms;
    },
  };
  const store = new KeysService(pool, { now: () => new Date(clock.now) });
  const check = proofCheck ?? createProofCheck({ allowHosts: '', timeoutMs: 2000 });
  const profiles = new ProfileService(pool, {
    checkProof: check,
    archiveLogo,
    now: () => new Date(clock.now),
  });
  return {
    pool,
    store,
    profiles,
    rpc: createKeysHandlers(store, profiles),
    clock,
    async close() {
      // pool.end() resolves once clients are removed, not once their backends have exited;
      // the forced drop below may hit one still closing, whose error must not go unheard.
      pool.on('error', () => undefined);
      await pool.end();
      await dropDatabase(database);
    },
  };
}

export const CALL = { requestId: 'req_test', deadlineMs: Infinity };

export interface Session {
  userId: string;
  enterpriseId: string;
  principal: Principal;
}

/** Signs a user in (as the gateway does after verifying their token). */
export async function signIn(
  h: Harness,
  opts: { ent: string; sub?: string; role?: string; email?: string },
): Promise<Session> {
  const res = await h.rpc.resolveSession(
    {
      subject: opts.sub ?? `sub-${newId('user')}`,
      enterprise_id: opts.ent,
      email: opts.email ?? '',
      role: opts.role ?? 'owner',
    },
    CALL,
  );
  return {
    userId: res.user_id,
    enterpriseId: res.enterprise_id,
    principal: {
      enterprise_id: res.enterprise_id,
      livemode: true,
      actor_id: res.user_id,
      actor_type: 'user',
      scopes: ['admin.*'],
    },
  };
}

export const keyPrincipal = (
  enterpriseId: string,
  keyId: string,
  scopes: string[],
  livemode = true,
): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: keyId,
  actor_type: 'api_key',
  scopes,
});

export function createRequest(principal: Principal, over: Partial<CreateKeyRequest> = {}): CreateKeyRequest {
  return {
    principal,
    name: 'ci key',
    type: 'production',
    permissions: ['transactions.read'],
    rate_limit: 0,
    expires_at: '',
    ip_address: '',
    allowed_ips: [],
    requests_per_hour: 0,
    burst_limit: 0,
    ...over,
  };
}

/** The HallmarkError a promise rejects with (fails the test if it resolves). */
export async function refusal(p: Promise<unknown>): Promise<HallmarkError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HallmarkError) return err;
    throw err;
  }
  throw new Error('expected a HallmarkError, but the call succeeded');
}

export async function outboxTypes(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ type: string }>('SELECT type FROM outbox ORDER BY seq');
  return rows.map((r) => r.type);
}

export const newEnterprise = () => newId('enterprise');
