// A resource's public shape, defined once: the schema that serialises every answer carrying
// it, and the OpenAPI component (`#/components/schemas/<name>`) the document refers to
// wherever an endpoint returns it. The mark is a symbol, so it rides along when TypeBox
// copies the schema (Type.Optional) and never reaches the wire or the document text.
import type { TSchema } from '@sinclair/typebox';

const RESOURCE = Symbol.for('hallmark.endpoint.resource');

interface ResourceMark {
  name: string;
  /** Shown in /docs beside the component; never part of the runtime schema. */
  example?: unknown;
}

/** Names `schema` as the component `name`; returns the same schema. */
export function defineResource<T extends TSchema>(
  name: string,
  schema: T,
  options: { example?: unknown } = {},
): T {
  (schema as unknown as Record<symbol, ResourceMark>)[RESOURCE] = { name, example: options.example };
  return schema;
}

export function resourceOf(schema: unknown): ResourceMark | undefined {
  return schema && typeof schema === 'object'
    ? (schema as Record<symbol, ResourceMark>)[RESOURCE]
    : undefined;
}

type Json = Record<string, unknown>;

/**
 * The schema as the document shows it: plain JSON with every resource inside it replaced by
 * a `$ref` to its component (the root itself stays whole when it is the component).
 */
export function documented(schema: unknown, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => documented(s, false));
  if (!schema || typeof schema !== 'object') return schema;
  const mark = resourceOf(schema);
  if (mark && !root) return { $ref: `#/components/schemas/${mark.name}` };
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, documented(v, false)]));
}

/** Every resource reachable from `schema` (itself included), by component name. */
export function collectResources(schema: unknown, out = new Map<string, Json>(), seen = new Set<unknown>()) {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return out;
  seen.add(schema);
  const mark = resourceOf(schema);
  if (mark && !out.has(mark.name)) {
    const component = documented(schema) as Json;
    out.set(mark.name, mark.example === undefined ? component : { ...component, example: mark.example });
  }
  for (const v of Array.isArray(schema) ? schema : Object.values(schema)) collectResources(v, out, seen);
  return out;
}
