// Black-box test harness: a whole Hallmark stack (every service and the gateway as real
// processes) on the real PostgreSQL server under a database prefix of its own, and a NATS
// server of its own, so tests never see a dev stack's data or events.
import { signDevToken, startStack, type Stack, type StackOptions } from '@hallmark/devstack';
import { newId, randomBase62 } from '@hallmark/kit';
import { dropDatabase } from '@hallmark/kit/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { responseValidator, type ResponseValidator } from './contract.js';

export interface TestStack extends Stack {
  prefix: string;
  /** A session token for a fresh enterprise (or the one given). */
  token(opts?: {
    ent?: string;
    sub?: string;
    role?: 'owner' | 'admin' | 'member';
    email?: string;
  }): Promise<string>;
  /** fetch against the gateway, JSON in and out. */
  call(
    method: string,
    urlPath: string,
    opts?: { auth?: string; body?: unknown; headers?: Record<string, string>; raw?: string },
  ): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestStack(opts: Partial<StackOptions> = {}): Promise<TestStack> {
  const prefix = `hme2e_${randomBase62(8).toLowerCase()}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hallmark-e2e-'));
  const stack = await startStack({
    dataDir,
    databaseUrl: process.env.DATABASE_URL,
    forceSpawnNats: true,
    databasePrefix: prefix,
    logLevel: process.env.E2E_LOG_LEVEL ?? 'warn',
    logToFiles: !process.env.E2E_VERBOSE,
    ...opts,
    // document.verified leaves once per certificate per window: a short one, so a test sees
    // its events within a fraction of a second (the default is 10 s).
    env: { HALLMARK_VERIFICATION_EVENT_WINDOW_MS: '200', ...opts.env },
  });
  let validator: Promise<ResponseValidator> | undefined;
  const call: TestStack['call'] = async (method, urlPath, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.auth) headers.authorization = `Bearer ${o.auth}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(stack.gatewayUrl + urlPath, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    // Every answer is checked against the published document (src/contract.ts).
    if (urlPath !== '/openapi.json' && !process.env.E2E_SKIP_CONTRACT) {
      validator ??= fetch(`${stack.gatewayUrl}/openapi.json`).then(async (r) =>
        responseValidator((await r.json()) as Record<string, unknown>),
      );
      const problem = (await validator).check(
        method,
        urlPath,
        res.status,
        res.headers.get('content-type'),
        parsed,
      );
      if (problem) throw new Error(`contract: ${problem}\n  body: ${text.slice(0, 400)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    ...stack,
    prefix,
    call,
    token: (o = {}) =>
      signDevToken(stack.secrets.jwtSecret, {
        ent: o.ent ?? newId('enterprise'),
        sub: o.sub ?? `user-${randomBase62(6)}`,
        role: o.role ?? 'owner',
        email: o.email,
      }),
    async close() {
      await stack.stop();
      // A server of the stack's own went with it, its databases with its data dir.
      if (stack.postgres.embedded) return rmSync(dataDir, { recursive: true, force: true });
      const admin = new pg.Client({ connectionString: stack.postgres.url });
      await admin.connect();
      const { rows } = await admin.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`${prefix}_%`],
      );
      await admin.end();
      for (const { datname } of rows) await dropDatabase(datname);
      // E2E_KEEP_LOGS=1 keeps the processes' logs (<dataDir>/logs) for a run to be diagnosed.
      if (process.env.E2E_KEEP_LOGS === '1') console.log(`e2e: logs kept in ${dataDir}/logs`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
