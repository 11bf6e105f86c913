// One rule for every route's input: no number reaches a service unbounded. Route schemas
// state their own bounds (spec values, e.g. `limit` ≤ 100); an integer or number a schema
// leaves open gets the safe-integer range here, so `9007199254740993` or `1e308` is a 400
// naming the field instead of an overflow further down. Integers also get an OpenAPI
// `format` (int32 when their bounds fit, else int64) so generated clients pick the type.
// Ajv's type coercion turns the text `1e999` into Infinity past `minimum`/`maximum`, so a
// last check after validation refuses any non-finite number in the params, query or body.
import { HallmarkError } from '@hallmark/kit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const INT32_MAX = 2 ** 31 - 1;

type Schema = Record<string, unknown>;

const typesOf = (s: Schema): string[] =>
  Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];

/** Fills missing numeric bounds in place, walking properties, items and combinators. */
export function boundNumbers(schema: unknown, seen = new Set<unknown>()): void {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
  seen.add(schema);
  const s = schema as Schema;
  const types = typesOf(s);
  if (types.includes('integer') || types.includes('number')) {
    s.minimum ??= -Number.MAX_SAFE_INTEGER;
    s.maximum ??= Number.MAX_SAFE_INTEGER;
    if (types.includes('integer'))
      s.format ??=
        Math.abs(s.minimum as number) <= INT32_MAX + 1 && (s.maximum as number) <= INT32_MAX
          ? 'int32'
          : 'int64';
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'])
    if (s[key] && typeof s[key] === 'object')
      for (const sub of Object.values(s[key] as Schema)) boundNumbers(sub, seen);
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else'])
    if (s[key] && typeof s[key] === 'object') boundNumbers(s[key], seen);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(s[key])) for (const sub of s[key] as unknown[]) boundNumbers(sub, seen);
}

/** The path (`a.b[0]`) of the first non-finite number in `value`, else null. */
export function nonFinitePath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (!value || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinitePath(value[i], `${path}[${i}]`, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const found = nonFinitePath(v, path ? `${path}.${k}` : k, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

export default fp(async function schemaBounds(app: FastifyInstance) {
  app.addHook('preHandler', async (request) => {
    const param =
      nonFinitePath(request.params, '') ??
      nonFinitePath(request.query, '') ??
      nonFinitePath(request.body, '');
    if (param !== null)
      throw new HallmarkError('parameter_invalid', {
        param: param || 'body',
        message: `Invalid ${param || 'body'}: must be a finite number within its bounds.`,
      });
  });
  app.addHook('onRoute', (route) => {
    const schema = route.schema as Schema | undefined;
    if (!schema) return;
    for (const part of ['body', 'querystring', 'params', 'headers']) boundNumbers(schema[part]);
  });
});
