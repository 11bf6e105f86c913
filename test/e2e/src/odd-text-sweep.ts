// Every operation of /openapi.json, each sent text in other scripts and lone surrogates as
// keys and values, in the path, the query and the JSON body (at the top and inside each
// known field, where maps and lists of records take them on to a service). Deterministic,
// unlike the property fuzz beside it: each operation gets every sample. A field name is the
// client's key, and an error naming it crosses gRPC: a key `é` once made a process exit
// (security issue 27). The property: no 5xx, no hang, each refusal in its surface's format.
import {
  encodeOdd,
  operations,
  problemOf,
  send,
  recordFailure,
  type FuzzCase,
  type FuzzTarget,
  type FuzzFailure,
} from './property-fuzz.js';

/** A few of ODD_TEXT's kinds: accented, another script, emoji, lone surrogates, bidi. */
const SAMPLES = ['é', '名前', '🙂', '\ud800', 'x\udfff', '\u202e'];

type Schema = Record<string, any>;

const typeOf = (s: Schema): string | undefined =>
  Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;

/** Strings tried for a string field, in order: the first its pattern and length allow. */
const CANDIDATES = [
  'hallmark-demo.myshopify.com',
  'ada@example.com',
  'https://example.com/a.png',
  'gid://shopify/Product/1',
  'ABC12345',
  'x',
];

/**
 * The smallest body the schema accepts as far as cheaply known (required fields only, each an
 * example, enum member or plausible value), so that a request gets past the gateway's
 * validation and on to the service that owns it.
 */
function minimal(schema: Schema | undefined): unknown {
  if (!schema) return {};
  const s = schema.oneOf?.[0] ?? schema.anyOf?.[0] ?? schema.allOf?.[0] ?? schema;
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  switch (typeOf(s)) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k: string) => [k, minimal(s.properties?.[k])]));
    case 'array':
      return s.minItems ? [minimal(s.items)] : [];
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string': {
      const fits = (v: string) =>
        (!s.pattern || new RegExp(s.pattern, 'u').test(v)) &&
        v.length >= (s.minLength ?? 0) &&
        v.length <= (s.maxLength ?? Infinity);
      return CANDIDATES.find(fits) ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
    }
    default:
      return 'x';
  }
}

/** Paths (property names) to every object in the schema that takes keys it does not list. */
function openMaps(schema: Schema | undefined, at: string[] = [], depth = 0): string[][] {
  if (!schema || depth > 4) return [];
  const s = schema.oneOf?.[0] ?? schema.anyOf?.[0] ?? schema;
  const out: string[][] = [];
  if (typeOf(s) === 'object') {
    if (s.additionalProperties !== false) out.push(at);
    for (const [k, v] of Object.entries<Schema>(s.properties ?? {}))
      out.push(...openMaps(v, [...at, k], depth + 1));
  }
  return out;
}

/** `base` with `{[t]: t}` put at `path` (objects on the way made as needed). */
function withKeyAt(base: unknown, path: string[], t: string): unknown {
  const root = structuredClone(base) as Record<string, any>;
  let o = root;
  for (const k of path) o = o[k] = o[k] && typeof o[k] === 'object' && !Array.isArray(o[k]) ? o[k] : {};
  o[t] = { [t]: t };
  return root;
}

/** Bodies carrying `t`: as a key in every open map (beside a minimal valid body), and as every value. */
function bodies(schema: Schema | undefined, t: string): unknown[] {
  const base = minimal(schema) ?? {};
  const props = Object.keys(schema?.properties ?? {});
  const out = openMaps(schema).map((path) => withKeyAt(base, path, t));
  out.push({ [t]: t });
  out.push({ ...(base as object), ...Object.fromEntries(props.map((p) => [p, [{ [t]: t }]])) });
  out.push({ ...(base as object), ...Object.fromEntries(props.map((p) => [p, t])) });
  return out;
}

export async function runOddTextSweep(
  target: FuzzTarget,
  opts: { pool?: number; log?: (line: string) => void } = {},
): Promise<{ cases: number; failures: FuzzFailure[]; statuses: Record<string, number> }> {
  const doc = (await (await fetch(`${target.baseUrl}/openapi.json`)).json()) as Record<string, any>;
  const pool = opts.pool ?? 20;
  const sessions = await Promise.all(Array.from({ length: pool }, (_, i) => target.session(i)));
  const failures: FuzzFailure[] = [];
  const statuses: Record<string, number> = {};
  let n = 0;
  let sent = 0;
  for (const op of operations(doc)) {
    const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
    for (const t of SAMPLES) {
      const seg = encodeOdd(t);
      const cases: FuzzCase[] = [];
      const path = op.path.replace(/\{[^}]+\}/g, seg);
      cases.push({ method: op.method, path, headers: {} });
      const names = [...op.queryNames.slice(0, 3), seg];
      cases.push({
        method: op.method,
        path: `${op.path.replace(/\{[^}]+\}/g, 'x')}?${names.map((q) => `${q}=${seg}`).join('&')}`,
        headers: {},
      });
      if (hasBody)
        for (const body of bodies(op.bodySchema, t))
          cases.push({
            method: op.method,
            path: op.path.replace(/\{[^}]+\}/g, 'x'),
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
      for (const c of cases) {
        const auth = op.auth === 'public' ? undefined : sessions[n++ % pool];
        sent++;
        let problem: string | null;
        try {
          const r = await send(target.baseUrl, c, auth);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          problem = problemOf(c, r);
        } catch (err) {
          problem = `no answer: ${(err as Error).message}`;
        }
        if (problem) recordFailure(failures, opts.log, target.baseUrl, op, c, auth, problem);
      }
    }
  }
  return { cases: sent, failures, statuses };
}
