// The document cannot drift from the code: every answer an e2e test receives through
// `stack.call` is checked against the operation `/openapi.json` publishes for it — the status
// must be documented, and a JSON body must match that status's schema (ajv, JSON Schema
// 2020-12 as OpenAPI 3.1 uses). A mismatch fails the test that made the call.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

interface Operation {
  method: string;
  /** The path template as a regular expression (`{id}` → one segment). */
  pattern: RegExp;
  literalSegments: number;
  responses: Json;
}

export interface ResponseValidator {
  /** Null when the answer is what the document says, else why not. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | null,
    body: unknown,
  ): string | null;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function responseValidator(input: Record<string, unknown>): ResponseValidator {
  const doc = input as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // Components as one schema, so `#/components/...` references resolve.
  ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {}))
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      const source = path
        .split('/')
        .map((seg) => (seg.startsWith('{') ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('/');
      ops.push({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${source}$`),
        literalSegments: path.split('/').filter((s) => s && !s.startsWith('{')).length,
        responses: item[method].responses ?? {},
      });
    }
  // The most literal template wins (`/api/bulk-mint/template/csv` over `/{jobId}/…`).
  ops.sort((a, b) => b.literalSegments - a.literalSegments);
  const compiled = new Map<unknown, ValidateFunction>();
  const resolve = (r: Json): Json => {
    if (typeof r?.$ref !== 'string') return r;
    const parts = r.$ref.replace(/^#\//, '').split('/');
    return parts.reduce((o: Json, k: string) => o?.[k], doc) ?? {};
  };
  const rewrite = (s: unknown): unknown =>
    JSON.parse(JSON.stringify(s).replace(/"#\/components\//g, '"openapi#/components/'));

  return {
    check(method, url, status, contentType, body) {
      const path = url.split('?')[0]!;
      const op = ops.find((o) => o.method === method && o.pattern.test(path));
      if (!op) return null; // not a documented route (404/405 answers, pages outside the document)
      const declared =
        op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
      if (!declared) return `${method} ${path}: status ${status} is not documented`;
      const response = resolve(declared);
      if (!contentType?.includes('application/json')) return null;
      const schema = response.content?.['application/json']?.schema;
      if (!schema) return `${method} ${path}: ${status} answered JSON, the document describes no JSON body`;
      let validate = compiled.get(schema);
      if (!validate) {
        validate = ajv.compile(rewrite(schema) as object);
        compiled.set(schema, validate);
      }
      if (validate(body)) return null;
      const e = validate.errors?.[0];
      return `${method} ${path} ${status}: body does not match the document at ${e?.instancePath || '/'}: ${e?.message} (${JSON.stringify(e?.params)})`;
    },
  };
}
