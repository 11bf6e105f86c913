// One rule for every route's text, instead of a pattern in each route schema: no string in
// the path parameters, the query or a parsed JSON body (nor an object key in it) may hold
// NUL or another C0 control character except tab, line feed and carriage return (kit
// text.ts says why). Refused with 400 parameter_invalid naming the field (`name`,
// `metadata[0].name`), before schema validation and before any service is called, so no
// such value ever reaches PostgreSQL. Bodies a route does not parse as JSON (the bulk order
// form, multipart uploads) are checked by the service that parses them.
import { controlCharacterMessage, hasForbiddenControl, HallmarkError } from '@hallmark/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/**
 * The path of the first string (or object key) holding a refused control character, or
 * null. Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function findControl(value: unknown, root = ''): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (hasForbiddenControl(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], join(path, i)]);
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const entries = Object.entries(v as Record<string, unknown>);
      for (const [k] of entries) if (hasForbiddenControl(k)) return path || k;
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], join(path, entries[i]![0])]);
    }
  }
  return null;
}

function refuse(field: string): HallmarkError {
  const message = controlCharacterMessage(field);
  return new HallmarkError('parameter_invalid', {
    param: field,
    message,
    extras: { errors: [{ field, message }] },
  });
}

export function checkRequest(request: FastifyRequest): void {
  for (const part of [request.params, request.query, request.body]) {
    if (part === undefined || part === null || typeof part !== 'object') continue;
    const field = findControl(part);
    if (field !== null) throw refuse(field || 'body');
  }
}

export default fp(async function controlChars(app: FastifyInstance) {
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkRequest(request);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
});
