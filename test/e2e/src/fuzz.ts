// Test-only: hostile text sent to every operation the gateway publishes in /openapi.json —
// NUL, other C0 controls, lone surrogates and invalid UTF-8 in path parameters, the query
// and every string property of a JSON body — collecting each reply that is a 5xx. New
// routes are covered without touching this file, like the shared security suite.
import type { Reply, TestStack } from './index.js';
import { callWithKey } from './keys.js';

export interface FuzzOperation {
  method: string;
  path: string;
  /** `public`, `session` (a user session only) or `key` (an API key, or either). */
  auth: 'public' | 'session' | 'key';
  params: string[];
  /** Top-level string properties of the JSON request body (none: no JSON body). */
  bodyStrings: string[];
  /** Top-level properties that are arrays of strings. */
  bodyStringArrays: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export async function fuzzOperations(stack: TestStack): Promise<FuzzOperation[]> {
  const res = await stack.call('GET', '/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const ops: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(res.body.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method)) continue;
      const security: Record<string, string[]>[] | undefined = op.security;
      const auth =
        !security || security.length === 0
          ? 'public'
          : security.some((s) => 'apiKeyHeader' in s)
            ? 'key'
            : 'session';
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const props = Object.entries<any>(schema?.properties ?? {});
      const isString = (p: any) =>
        p?.type === 'string' || (Array.isArray(p?.type) && p.type.includes('string'));
      const bodyStrings = props.filter(([, p]) => isString(p)).map(([name]) => name);
      const bodyStringArrays = props
        .filter(([, p]) => p.type === 'array' && isString(p.items))
        .map(([n]) => n);
      const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      ops.push({ method: method.toUpperCase(), path, auth, params, bodyStrings, bodyStringArrays });
    }
  }
  return ops;
}

export interface Credentials {
  session: string;
  adminKey: string;
}

/** Sends one request to `op` with the right credential. */
export function send(
  stack: TestStack,
  creds: Credentials,
  op: FuzzOperation,
  url: string,
  body?: unknown,
): Promise<Reply> {
  if (op.auth === 'public') return stack.call(op.method, url, { body });
  if (op.auth === 'session') return stack.call(op.method, url, { auth: creds.session, body });
  return callWithKey(stack, op.method, url, creds.adminKey, 'bearer', { body });
}

/** A body with every string property set to `v` and every string-array property to `[v]`. */
export const hostileBody = (op: FuzzOperation, v: string) => ({
  ...Object.fromEntries(op.bodyStrings.map((k) => [k, v])),
  ...Object.fromEntries(op.bodyStringArrays.map((k) => [k, [v]])),
});

/** `path` with every parameter replaced by `value` (already URL-encoded). */
export const fill = (op: FuzzOperation, value: string) => op.path.replace(/\{[^}]+\}/g, value);
