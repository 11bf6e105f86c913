// The shared security suite: every authenticated operation the gateway publishes in
// `GET /openapi.json` is attacked with each kind of bad credential, and must refuse it with
// the right status and code, in its surface's error style. The suite discovers the routes
// itself (the gateway writes each route's auth into the OpenAPI `security` field: none =
// public; `[{sessionJwt}]` = session only; with `{apiKeyHeader}` = API key, or either; and
// its scopes into `x-required-scopes`), so a route added by a later issue is covered without
// touching this file.
//
// Authentication runs in the gateway's onRequest hook, after routing and before any body
// or parameter validation, so path parameters are replaced by dummy ids and no body is
// sent: a refusal must come before anything else is looked at.
//
// Use: `describeSecuritySuite(() => stack)` inside a test file that starts a stack.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { signDevToken } from '@hallmark/devstack';
import { newId } from '@hallmark/kit';
import type { Reply, TestStack } from './index.js';
import {
  callWithKey,
  createKey,
  errorOf,
  mistype,
  sleep,
  timeUntil,
  unknownWellFormedKey,
  type Channel,
} from './keys.js';

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/api/v1/api-keys/{key_id}`. */
  path: string;
  /** The path with every parameter replaced by a dummy id. */
  url: string;
  /** `session`: a user session token only; `key`: an API key (or either). */
  accepts: 'session' | 'key';
  /** Any one of these suffices (an empty list: no scope needed). */
  scopes: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every authenticated operation of the gateway's OpenAPI document. */
export async function discoverOperations(stack: TestStack): Promise<Operation[]> {
  const res = await stack.call('GET', '/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(res.body.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method)) continue;
      const security: Record<string, string[]>[] | undefined = op.security;
      if (!security || security.length === 0) continue; // public
      // Signed by a third party (the platform's HMAC), not a Hallmark credential: its refusals
      // are proven by the platform suite (missing or wrong signature → 401).
      if (security.every((s) => 'platformHmac' in s)) continue;
      const accepts = security.some((s) => 'apiKeyHeader' in s) ? 'key' : 'session';
      const scopes: string[] = op['x-required-scopes'] ?? [];
      const url = path.replace(/\{[^}]+\}/g, (_, i: number) => `sec_dummy_${i}`);
      ops.push({ method: method.toUpperCase(), path, url, accepts, scopes });
    }
  }
  return ops;
}

/** The gateway's scope rule (architecture.md › Scopes): `X.*` and `admin.*` wildcards. */
export function grants(granted: readonly string[], required: string): boolean {
  if (granted.includes('admin.*') || granted.includes(required)) return true;
  const dot = required.indexOf('.');
  return dot > 0 && granted.includes(`${required.slice(0, dot)}.*`);
}

interface Fixtures {
  session: string;
  admin: string;
  revoked: string;
  expired: string;
  expiresAtMs: number;
  ipRestricted: string;
  /** Valid keys with narrow scopes, to find one lacking what an operation needs. */
  narrow: { key: string; scopes: string[] }[];
  expiredSession: string;
  foreignSession: string;
}

async function prepare(stack: TestStack): Promise<Fixtures> {
  const session = await stack.token({ role: 'owner' });
  // The expiring key first: its wait runs while the other fixtures are made.
  const expiresAtMs = Date.now() + 2500;
  const expiring = await createKey(stack, session, {
    name: 'sec expiring',
    expiresAt: new Date(expiresAtMs).toISOString(),
  });
  const [admin, revoked, ipRestricted, billing, users] = await Promise.all([
    createKey(stack, session, { name: 'sec admin' }),
    createKey(stack, session, { name: 'sec revoked' }),
    createKey(stack, session, { name: 'sec ip', allowedIps: ['10.9.9.9'] }),
    createKey(stack, session, { name: 'sec billing', permissions: ['billing.read'] }),
    createKey(stack, session, { name: 'sec users', permissions: ['users.read'] }),
  ]);
  // Verified once (and cached by the gateway) before the revocation, as in real life.
  const warm = await callWithKey(stack, 'GET', '/api/v1/api-keys', revoked.key);
  if (warm.status !== 200) throw new Error(`fixture key refused before revocation: ${warm.text}`);
  const del = await stack.call('DELETE', `/api/v1/api-keys/${revoked.id}`, { auth: session });
  if (del.status !== 200) throw new Error(`revoking the fixture key failed: ${del.text}`);
  // The gateway drops its cached verification on the key.revoked event (within 1 s).
  await timeUntil(
    async () => (await callWithKey(stack, 'GET', '/api/v1/api-keys', revoked.key)).status === 401,
    {
      timeoutMs: 5000,
    },
  );
  const ent = newId('enterprise');
  return {
    session,
    admin: admin.key,
    revoked: revoked.key,
    expired: expiring.key,
    expiresAtMs,
    ipRestricted: ipRestricted.key,
    narrow: [
      { key: billing.key, scopes: billing.permissions },
      { key: users.key, scopes: users.permissions },
    ],
    expiredSession: await signDevToken(stack.secrets.jwtSecret, { ent, sub: 'sec-user', ttlSec: -60 }),
    foreignSession: await signDevToken('a-different-secret-that-is-long-enough-000', {
      ent,
      sub: 'sec-user',
    }),
  };
}

/** An unsigned token (`alg: none`): must never be accepted. */
function unsignedToken(): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', ent: newId('enterprise'), role: 'owner', exp: now + 600 })}.`;
}

interface Expectation {
  status: number;
  /** Acceptable codes (any one). */
  codes: string[];
  /** Extra checks on the error's fields; return a problem or null. */
  check?: (fields: Record<string, unknown>) => string | null;
}

/** Checks one reply; returns a readable problem, or null when it is as expected. */
function verdict(op: Operation, label: string, res: Reply, want: Expectation): string | null {
  const e = errorOf(res, op.url);
  const problems: string[] = [];
  if (res.status !== want.status) problems.push(`status ${res.status}, want ${want.status}`);
  if (!e.code || !want.codes.includes(e.code)) problems.push(`code ${e.code}, want ${want.codes.join('|')}`);
  problems.push(...e.styleProblems);
  const extra = want.check?.(e.fields);
  if (extra) problems.push(extra);
  if (problems.length === 0) return null;
  return `${op.method} ${op.path} [${label}]: ${problems.join('; ')} — ${res.text.slice(0, 300)}`;
}

/**
 * Runs `probe` against every operation `applies` to and asserts that none misbehaves; the
 * failure message lists every offending operation.
 */
async function everyOperation(
  ops: Operation[],
  applies: (op: Operation) => boolean,
  probe: (op: Operation) => Promise<(string | null)[]>,
): Promise<void> {
  const chosen = ops.filter(applies);
  // A category with no operation at all would pass vacuously: every one has some today.
  expect(chosen.length).toBeGreaterThan(0);
  const results = await Promise.all(chosen.map(probe));
  expect(results.flat().filter((p): p is string => p !== null)).toEqual([]);
}

const authError = (codes: string[]): Expectation => ({ status: 401, codes });
const keyRoute = (op: Operation) => op.accepts === 'key';
const sessionRoute = (op: Operation) => op.accepts === 'session';
const any = () => true;

export interface SecuritySuiteOptions {
  /** Only operations this accepts are attacked (default: all). */
  filter?: (op: Operation) => boolean;
  /** Operations that must be among those discovered (guards against a vacuous pass). */
  mustInclude?: string[];
}

/**
 * Declares the security suite (a `describe` block) for every authenticated operation of
 * the stack's gateway. `getStack` is read when the tests run (after the file's beforeAll).
 */
export function describeSecuritySuite(getStack: () => TestStack, opts: SecuritySuiteOptions = {}): void {
  describe('security suite: every authenticated operation of the gateway', () => {
    let stack: TestStack;
    let ops: Operation[];
    let fx: Fixtures;

    beforeAll(async () => {
      stack = getStack();
      ops = (await discoverOperations(stack)).filter(opts.filter ?? any);
      fx = await prepare(stack);
    }, 30_000);

    const send = (op: Operation, key: string, via: Channel) =>
      callWithKey(stack, op.method, op.url, key, via);
    const sendSession = (op: Operation, token: string) => stack.call(op.method, op.url, { auth: token });

    it('discovers the authenticated operations from /openapi.json', () => {
      const names = ops.map((o) => `${o.method} ${o.path}`);
      expect(ops.length).toBeGreaterThan(0);
      for (const m of opts.mustInclude ?? []) expect(names).toContain(m);
    });

    it('no credential at all → 401 missing_api_key', async () => {
      await everyOperation(ops, any, async (op) => [
        verdict(op, 'none', await stack.call(op.method, op.url), authError(['missing_api_key'])),
      ]);
    });

    it('a malformed, a mistyped, or a well-formed but never-issued key → 401 invalid_api_key, through every channel', async () => {
      const bad = {
        garbage: 'not-a-key',
        'wrong prefix': 'sk_live_' + 'a'.repeat(38),
        truncated: fx.admin.slice(0, -1),
        mistyped: mistype(fx.admin),
        'never issued': unknownWellFormedKey(),
      };
      await everyOperation(ops, keyRoute, async (op) => {
        const out: (string | null)[] = [];
        for (const [label, key] of Object.entries(bad)) {
          for (const via of ['bearer', 'header', 'query'] as const) {
            out.push(
              verdict(op, `${label} via ${via}`, await send(op, key, via), authError(['invalid_api_key'])),
            );
          }
        }
        return out;
      });
    });

    it('a revoked key → 401 invalid_api_key', async () => {
      await everyOperation(ops, keyRoute, async (op) => [
        verdict(
          op,
          'revoked via bearer',
          await send(op, fx.revoked, 'bearer'),
          authError(['invalid_api_key']),
        ),
        verdict(
          op,
          'revoked via x-api-key',
          await send(op, fx.revoked, 'header'),
          authError(['invalid_api_key']),
        ),
      ]);
    });

    it('an expired key → 401 expired_api_key', async () => {
      const wait = fx.expiresAtMs + 50 - Date.now();
      if (wait > 0) await sleep(wait);
      await everyOperation(ops, keyRoute, async (op) => [
        verdict(op, 'expired', await send(op, fx.expired, 'bearer'), authError(['expired_api_key'])),
      ]);
    });

    it('a valid key lacking the scope → 403 insufficient_permissions naming the required permission', async () => {
      const scoped = (op: Operation) => keyRoute(op) && op.scopes.length > 0;
      await everyOperation(ops, scoped, async (op) => {
        const lacking = fx.narrow.find((k) => !op.scopes.some((s) => grants(k.scopes, s)));
        if (!lacking) return [`${op.method} ${op.path}: no fixture key lacks ${op.scopes.join('|')}`];
        const want: Expectation = {
          status: 403,
          codes: ['insufficient_permissions'],
          check: (f) =>
            op.scopes.includes(f.required_permission as string)
              ? null
              : `required_permission ${String(f.required_permission)}, want one of ${op.scopes.join('|')}`,
        };
        return [
          verdict(op, 'lacking scope via bearer', await send(op, lacking.key, 'bearer'), want),
          verdict(op, 'lacking scope via x-api-key', await send(op, lacking.key, 'header'), want),
        ];
      });
    });

    it('a key used from outside its allowedIps → 403 insufficient_permissions', async () => {
      await everyOperation(ops, keyRoute, async (op) => [
        verdict(op, 'outside allowedIps', await send(op, fx.ipRestricted, 'bearer'), {
          status: 403,
          codes: ['insufficient_permissions'],
          check: (f) => (typeof f.required_permission === 'string' ? null : 'required_permission missing'),
        }),
      ]);
    });

    it('session-only operations refuse any API key with 401', async () => {
      await everyOperation(ops, sessionRoute, async (op) => {
        const out: (string | null)[] = [];
        for (const via of ['bearer', 'header', 'query'] as const) {
          out.push(
            verdict(
              op,
              `valid admin key via ${via}`,
              await send(op, fx.admin, via),
              authError(['invalid_token']),
            ),
          );
        }
        out.push(
          verdict(
            op,
            'malformed key',
            await send(op, 'pk_live_nope', 'header'),
            authError(['invalid_token']),
          ),
        );
        return out;
      });
    });

    it('an expired, foreign-signed or unsigned session token → 401 (never accepted)', async () => {
      const tokens = {
        expired: fx.expiredSession,
        'signed with another secret': fx.foreignSession,
        'alg none': unsignedToken(),
      };
      await everyOperation(ops, any, async (op) => {
        const out: (string | null)[] = [];
        for (const [label, token] of Object.entries(tokens)) {
          // Key-only operations refuse every session as invalid_api_key; the others judge the token.
          const codes = op.accepts === 'session' ? ['invalid_token'] : ['invalid_token', 'invalid_api_key'];
          out.push(verdict(op, label, await sendSession(op, token), authError(codes)));
        }
        return out;
      });
    });
  });
}
