// Property-based fuzzing of every operation /openapi.json publishes (fast-check): wrong
// types, missing and unknown fields, huge and non-finite numbers, long and odd unicode,
// nulls, arrays for objects, deep nesting, bad path ids and query values, wrong content
// types and truncated JSON. The properties: no 5xx and no hang; a 4xx is in the surface's
// error format with a request_id; a refused create leaves the list as it was. Each failure is
// reported as a curl command that replays it. Used by the seeded jest run and `pnpm fuzz`.
import fc from 'fast-check';

type Json = Record<string, any>;

export interface FuzzTarget {
  baseUrl: string;
  /** A session token of a fresh enterprise (`n` picks one of a pool, to spread rate limits). */
  session(n: number): Promise<string>;
}

export interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzFailure {
  problem: string;
  curl: string;
}

export interface Op {
  method: string;
  path: string;
  auth: 'public' | 'session' | 'key';
  bodySchema?: Json;
  queryNames: string[];
  /** GET on the same path lists what this POST creates: the partial-write check. */
  listsCreates: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TIMEOUT_MS = 15_000;

export function operations(doc: Json): Op[] {
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {}))
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      const op = item[method];
      // A Server-Sent Events stream (GET /api/v1/listen) does not end by design, so "no hang"
      // cannot hold for its valid requests; its refusals are proven by its route tests.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      const security: Json[] = op.security ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        auth:
          security.length === 0 ? 'public' : security.some((s) => 'apiKeyHeader' in s) ? 'key' : 'session',
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
        queryNames: (op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name),
        listsCreates: method === 'post' && !path.includes('{') && !!item.get,
      });
    }
  return ops;
}

// ── generators ────────────────────────────────────────────────────────────────────────

/**
 * Keys and values in other scripts, and lone surrogates (JSON's `\ud800` escape makes one): a
 * field name is the client's key, and an error naming it crosses gRPC (security issue 27: a
 * key `é` once made a service process exit).
 */
export const ODD_TEXT = [
  'é',
  'Ωmega',
  '名前',
  'اسم',
  '🙂',
  'e\u0301',
  '\ud800',
  'x\udfff',
  '\udbff\ud800',
  '\u202e',
  '\u200b',
  '\ufeff',
];
const oddKey = fc.oneof(
  fc.constantFrom(...ODD_TEXT),
  fc.constantFrom(...ODD_TEXT).map((t) => `field${t}`),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
);

const oddString = fc.oneof(
  fc.constantFrom(...ODD_TEXT),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  // NUL and C0 controls, a lone surrogate, bidi override (security issue: none may give a 5xx).
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\u0007\u001b[31m', '\u202e', '\ud800', 'x\udfff'),
  fc.constantFrom('ﷺ'.repeat(30), '𝕳'.repeat(100), '../../etc/passwd', '%00'),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
);
const hugeNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, Number('9007199254740993'), 2 ** 63, -0, 0.5, 1e-320),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** JSON text of a number the JSON model cannot hold (Infinity, NaN, 400 digits). */
const wildNumberText = fc.constantFrom('1e999', '-1e999', '9'.repeat(400), '1e308', '0.1e-999', '-0');

const leaf: fc.Arbitrary<unknown> = fc.oneof(oddString, hugeNumber, fc.boolean(), fc.constant(null));
const deep = fc.integer({ min: 50, max: 3000 }).map((d) => {
  let v: unknown = 1;
  for (let i = 0; i < d; i++) v = i % 2 ? [v] : { a: v };
  return v;
});
const anyValue = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 2, arbitrary: fc.array(leaf, { maxLength: 5 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), leaf, { maxKeys: 5 }) },
  { weight: 1, arbitrary: deep },
);

/** A body near the schema: its fields, each maybe replaced, dropped, or joined by unknowns. */
function nearBody(schema: Json | undefined): fc.Arbitrary<unknown> {
  const props = Object.keys(schema?.properties ?? {});
  const field = fc.record({
    keep: fc.constantFrom(...(props.length ? props : ['x'])),
    value: anyValue,
  });
  // Odd keys at the top, and inside a known field as an object's keys or an array's objects'
  // (where maps and lists of records take them: variables, mappings, metadata).
  const oddKeyed = fc.dictionary(oddKey, leaf, { minKeys: 1, maxKeys: 3 });
  const nestedOdd = fc
    .record({
      keep: fc.constantFrom(...(props.length ? props : ['x'])),
      inner: fc.oneof(
        oddKeyed,
        fc.array(oddKeyed, { minLength: 1, maxLength: 2 }),
        fc.dictionary(oddKey, oddKeyed, { minKeys: 1, maxKeys: 2 }),
      ),
    })
    .map((r) => ({ [r.keep]: r.inner }));
  return fc.oneof(
    fc.array(field, { maxLength: 6 }).map((fs) => Object.fromEntries(fs.map((f) => [f.keep, f.value]))),
    fc.record({ extra: anyValue }).map((r) => ({ unknownField: r.extra })),
    oddKeyed,
    nestedOdd,
    anyValue,
  );
}

/** Text as a query or path segment: UTF-8 percent-encoded, a lone surrogate as its CESU bytes. */
export const encodeOdd = (t: string) => {
  try {
    return encodeURIComponent(t);
  } catch {
    return '%ED%A0%80'; // encodeURIComponent refuses a lone surrogate; these are its bytes
  }
};

function bodyCase(op: Op): fc.Arbitrary<{ contentType: string; body?: string }> {
  const json = (v: unknown) => ({ contentType: 'application/json', body: JSON.stringify(v) ?? 'null' });
  return fc.oneof(
    { weight: 6, arbitrary: nearBody(op.bodySchema).map(json) },
    {
      weight: 1,
      arbitrary: fc.tuple(nearBody(op.bodySchema), fc.nat()).map(([v, cut]) => {
        const t = JSON.stringify(v) ?? '{}';
        return { contentType: 'application/json', body: t.slice(0, cut % Math.max(1, t.length)) };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(op.bodySchema?.properties ?? { value: 1 })), wildNumberText)
        .map(([k, n]) => ({ contentType: 'application/json', body: `{"${k}":${n}}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
        )
        .map((contentType) => ({ contentType, body: '{"a":1}' })),
    },
  );
}

const pathValue = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '1e999',
    'NaN',
    'null',
    '%2e%2e',
    'vouch_' + '0'.repeat(24),
    '%00',
    '%01',
    '%1B',
  ),
  // Invalid UTF-8 in the path: truncated, overlong and stray bytes, and an encoded lone surrogate.
  fc.constantFrom('%E0%A4%A', '%FF', '%C0%AF', '%ED%A0%80', 'a%80b'),
  fc.constantFrom(...ODD_TEXT).map(encodeOdd),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.integer({ min: 65, max: 12_000 }).map((n) => 'a'.repeat(n)),
);
const queryValue = fc.oneof(
  fc.constantFrom('1e999', '-1', '0', '1.5', '9007199254740993', 'true', '', '%00', 'a'.repeat(5000)),
  fc.constantFrom(...ODD_TEXT).map(encodeOdd),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

function caseOf(op: Op): fc.Arbitrary<FuzzCase> {
  const params = [...op.path.matchAll(/\{[^}]+\}/g)].length;
  const names = [...op.queryNames, 'unknown_param', ...ODD_TEXT.slice(0, 6).map(encodeOdd)];
  return fc
    .record({
      ids: fc.array(pathValue, { minLength: params, maxLength: params }),
      query: fc.array(fc.tuple(fc.constantFrom(...names), queryValue), { maxLength: 3 }),
      body: op.method === 'GET' || op.method === 'DELETE' ? fc.constant(undefined) : bodyCase(op),
    })
    .map(({ ids, query, body }) => {
      let i = 0;
      const path =
        op.path.replace(/\{[^}]+\}/g, () => ids[i++]!) +
        (query.length ? '?' + query.map(([k, v]) => `${k}=${v}`).join('&') : '');
      return {
        method: op.method,
        path,
        headers: (body ? { 'content-type': body.contentType } : {}) as Record<string, string>,
        body: body?.body,
      };
    });
}

// ── properties ────────────────────────────────────────────────────────────────────────

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Notes a case that broke a property, with the curl command that replays it. */
export function recordFailure(
  failures: FuzzFailure[],
  log: ((line: string) => void) | undefined,
  baseUrl: string,
  op: Op,
  c: FuzzCase,
  auth: string | undefined,
  problem: string,
): void {
  const failure = { problem: `${op.method} ${op.path}: ${problem}`, curl: curlOf(baseUrl, c, auth) };
  failures.push(failure);
  log?.(`${failure.problem}\n  ${failure.curl}`);
}

export function curlOf(baseUrl: string, c: FuzzCase, auth?: string): string {
  const parts = ['curl', '-i', '-X', c.method, shellQuote(baseUrl + c.path)];
  if (auth) parts.push('-H', shellQuote(`authorization: Bearer ${auth}`));
  for (const [k, v] of Object.entries(c.headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (c.body !== undefined)
    parts.push('--data-binary', shellQuote(c.body.length > 2000 ? c.body.slice(0, 2000) : c.body));
  return parts.join(' ');
}

export async function send(baseUrl: string, c: FuzzCase, auth?: string) {
  const headers = { ...c.headers, ...(auth ? { authorization: `Bearer ${auth}` } : {}) };
  const res = await fetch(baseUrl + c.path, {
    method: c.method,
    headers,
    body: c.body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, requestId: res.headers.get('x-request-id') };
}

/** Pages a person's browser lands on: they answer HTML pages, errors included. */
const HTML_PAGES = ['/verify/', '/vouchers/', '/claim/', '/t/', '/api/platform/auth/callback'];

/** Why an answer breaks the contract, or null. */
export function problemOf(c: FuzzCase, r: Awaited<ReturnType<typeof send>>): string | null {
  const path = c.path.split('?')[0]!;
  // A health probe's 503 reports the stack's state (a test stack runs without a chain), not
  // a refusal of the input.
  if (r.status === 503 && path === '/api/certificate/health') return null;
  if (r.status >= 500) return `answered ${r.status}: ${r.text.slice(0, 200)}`;
  if (r.status < 400) return null; // generated input that happens to be valid
  // Refused by the HTTP parser before routing (headers over 16 KB): the versioned envelope.
  const api = r.status !== 431 && path.startsWith('/api/') && !path.startsWith('/api/v1/');
  const ct = r.body === undefined ? 'no JSON' : 'JSON';
  if (HTML_PAGES.some((prefix) => path.startsWith(prefix))) return null;
  if (!r.body) return `answered ${r.status} with ${ct}: ${r.text.slice(0, 200)}`;
  const id = api ? r.body.request_id : r.body.error?.request_id;
  if (api && (r.body.success !== false || typeof r.body.code !== 'string'))
    return `answered ${r.status} not in the /api error format: ${r.text.slice(0, 200)}`;
  if (!api && typeof r.body.error?.code !== 'string')
    return `answered ${r.status} not in the error envelope: ${r.text.slice(0, 200)}`;
  if (typeof id !== 'string' || !id.startsWith('req_') || id !== r.requestId)
    return `answered ${r.status} without its request_id: ${r.text.slice(0, 200)}`;
  return null;
}

/** How many objects the GET list of `path` shows, for the partial-write check. */
async function listSize(baseUrl: string, path: string, auth: string): Promise<string> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${auth}` } });
  if (res.status !== 200) return `status ${res.status}`;
  const body = (await res.json()) as Json;
  const list = Object.values(body.data ?? body).find(Array.isArray) as unknown[] | undefined;
  return JSON.stringify([list?.length, body.pagination?.total ?? body.data?.pagination?.totalItems]);
}

export async function runFuzz(
  target: FuzzTarget,
  opts: { runs: number; seed: number; pool?: number; log?: (line: string) => void },
): Promise<{ cases: number; failures: FuzzFailure[]; statuses: Record<string, number> }> {
  const doc = (await (await fetch(`${target.baseUrl}/openapi.json`)).json()) as Json;
  const ops = operations(doc);
  const pool = opts.pool ?? 20;
  const sessions = await Promise.all(Array.from({ length: pool }, (_, i) => target.session(i)));
  const failures: FuzzFailure[] = [];
  const statuses: Record<string, number> = {};
  let n = 0;
  const property = fc.asyncProperty(
    fc.constantFrom(...ops).chain((op) => fc.tuple(fc.constant(op), caseOf(op))),
    async ([op, c]) => {
      const auth = op.auth === 'public' ? undefined : sessions[n++ % pool];
      const before = op.listsCreates && auth ? await listSize(target.baseUrl, op.path, auth) : null;
      let problem: string | null;
      try {
        const r = await send(target.baseUrl, c, auth);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        problem = problemOf(c, r);
        if (!problem && before !== null && r.status >= 400) {
          const after = await listSize(target.baseUrl, op.path, auth!);
          if (after !== before)
            problem = `refused with ${r.status} but the list changed: ${before} → ${after}`;
        }
      } catch (err) {
        problem = `no answer within ${TIMEOUT_MS} ms: ${(err as Error).message}`;
      }
      if (problem) recordFailure(failures, opts.log, target.baseUrl, op, c, auth, problem);
      return true; // every case runs; failures are collected, not shrunk
    },
  );
  await fc.assert(property, { numRuns: opts.runs, seed: opts.seed });
  return { cases: opts.runs, failures, statuses };
}
