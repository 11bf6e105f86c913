// Test-only helpers for the API key end-to-end tests: issuing keys through the real
// gateway, calling with a key through each credential channel, and reading an error
// body in either surface's style.
import { generateApiKey } from '@hallmark/kit';
import type { Reply, TestStack } from './index.js';

/** What `POST /api/v1/api-keys` answers (the secret is in `key`). */
export interface IssuedKey {
  id: string;
  key: string;
  name: string;
  type: string;
  permissions: string[];
  rateLimit: number;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  status: string;
  keyPrefix: string;
  allowedIps: string[];
  livemode: boolean;
}

export interface CreateKeyBody {
  name?: string;
  type?: 'production' | 'test' | 'restricted';
  permissions?: string[];
  rateLimit?: number;
  expiresAt?: string;
  allowedIps?: string[];
}

/** Issues a key with `auth` (a session token or an admin key); throws unless 201. */
export async function createKey(
  stack: TestStack,
  auth: string,
  body: CreateKeyBody = {},
): Promise<IssuedKey> {
  const res = await stack.call('POST', '/api/v1/api-keys', {
    auth,
    body: { name: 'e2e key', type: 'production', permissions: ['admin.*'], ...body },
  });
  if (res.status !== 201) throw new Error(`creating a key failed: ${res.status} ${res.text}`);
  return res.body as IssuedKey;
}

/** Issues an enterprise key (`POST /api/enterprise/api-keys`, session only); throws unless 201. */
export async function createEnterpriseKey(
  stack: TestStack,
  session: string,
  body: {
    name?: string;
    scopes?: string[];
    rateLimit?: { requestsPerHour?: number; burstLimit?: number };
  } = {},
): Promise<{ id: string; key: string; keyPrefix: string; scopes: string[]; createdAt: string }> {
  const res = await stack.call('POST', '/api/enterprise/api-keys', {
    auth: session,
    body: { name: 'e2e enterprise key', scopes: ['bulk:mint'], ...body },
  });
  if (res.status !== 201) throw new Error(`creating an enterprise key failed: ${res.status} ${res.text}`);
  return res.body.apiKey;
}

export const secondsFromNow = (s: number): string => new Date(Date.now() + s * 1000).toISOString();

export type Channel = 'bearer' | 'header' | 'query';

/** A request authenticated by `key` sent the way `via` says (spec › Authentication 1–3). */
export function callWithKey(
  stack: TestStack,
  method: string,
  urlPath: string,
  key: string,
  via: Channel = 'bearer',
  opts: { body?: unknown; headers?: Record<string, string>; gatewayUrl?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let target = urlPath;
  if (via === 'bearer') headers.authorization = `Bearer ${key}`;
  else if (via === 'header') headers['x-api-key'] = key;
  else target += `${urlPath.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key)}`;
  if (!opts.gatewayUrl) return stack.call(method, target, { headers, body: opts.body });
  return fetchJson(opts.gatewayUrl + target, method, headers, opts.body);
}

/** fetch with JSON in and out, shaped like `stack.call`'s reply (for other gateway processes). */
export async function fetchJson(
  url: string,
  method = 'GET',
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Reply> {
  const h = { ...headers };
  if (body !== undefined) h['content-type'] ??= 'application/json';
  const res = await fetch(url, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A key in the right shape whose checksum holds but that was never issued. */
export const unknownWellFormedKey = (): string => generateApiKey('production');

/** A real key with one body character changed: the checksum no longer holds. */
export function mistype(key: string): string {
  const i = key.length - 10;
  const c = key[i] === 'a' ? 'b' : 'a';
  return key.slice(0, i) + c + key.slice(i + 1);
}

export interface ErrorView {
  status: number;
  surface: 'v1' | 'api';
  type?: string;
  code?: string;
  param?: string;
  message?: string;
  requestId?: string;
  /** Every other field of the error (retry_after, required_permission, errors, …). */
  fields: Record<string, unknown>;
  /** Problems with the body's shape for its surface; empty when it is in style. */
  styleProblems: string[];
}

/**
 * Reads an error reply in its surface's style: `{error:{type, code, message, param?,
 * request_id}}` under /api/v1 (and everywhere outside /api), `{success:false, error, code,
 * request_id}` on the unversioned /api surface.
 */
export function errorOf(res: Reply, urlPath: string): ErrorView {
  const p = urlPath.split('?')[0]!;
  const surface = p.startsWith('/api/') && !p.startsWith('/api/v1/') && p !== '/api/v1' ? 'api' : 'v1';
  const problems: string[] = [];
  const b = res.body;
  if (!b || typeof b !== 'object') {
    return {
      status: res.status,
      surface,
      fields: {},
      styleProblems: [`body is not JSON: ${res.text.slice(0, 200)}`],
    };
  }
  let fields: Record<string, unknown>;
  if (surface === 'v1') {
    const e = b.error;
    if (!e || typeof e !== 'object') {
      problems.push('no `error` object (v1 envelope)');
      fields = {};
    } else {
      fields = e;
      for (const f of ['type', 'code', 'message', 'request_id'])
        if (typeof e[f] !== 'string') problems.push(`error.${f} missing`);
    }
  } else {
    fields = b;
    if (b.success !== false) problems.push('`success: false` missing (unversioned surface)');
    for (const f of ['error', 'code', 'request_id'])
      if (typeof b[f] !== 'string') problems.push(`${f} missing`);
  }
  const requestId = fields.request_id as string | undefined;
  if (requestId && res.headers.get('x-request-id') !== requestId)
    problems.push('request_id differs from the x-request-id header');
  return {
    status: res.status,
    surface,
    type: surface === 'v1' ? (fields.type as string | undefined) : undefined,
    code: fields.code as string | undefined,
    param: fields.param as string | undefined,
    message: (surface === 'v1' ? fields.message : fields.error) as string | undefined,
    requestId,
    fields,
    styleProblems: problems,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every `intervalMs` until it returns true; resolves with the time it took (ms). */
export async function timeUntil(
  fn: () => Promise<boolean>,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await fn()) return performance.now() - start;
    if (performance.now() - start > opts.timeoutMs)
      throw new Error(`condition not met within ${opts.timeoutMs} ms`);
    await sleep(opts.intervalMs ?? 50);
  }
}

/**
 * A burst limit is a 1-s window starting with the first request counted. Requests sent
 * together and all answered within `tookMs` were counted in at most this many windows
 * (one when under 1 s), each allowing the burst: on a loaded machine the bound loosens
 * honestly instead of failing.
 */
export function burstWindows(tookMs: number): number {
  return Math.max(1, Math.ceil(tookMs / 1000));
}
