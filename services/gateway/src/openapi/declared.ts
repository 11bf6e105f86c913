// What the OpenAPI document takes from declared endpoints (endpoint/define.ts): their success
// responses and the components of the resources they return. Every operation is declared:
// there are no side tables.
import type { Endpoint } from '../endpoint/define.js';
import { collectResources, documented } from '../endpoint/resource.js';

type Json = Record<string, any>;

/** A non-JSON answer: documented as bytes of its media type. */
const binaryContent = (contentType: string) => ({
  [contentType]: { schema: { type: 'string', format: 'binary', maxLength: 200 * 1024 * 1024 } },
});

/** The endpoint's declared answers, [status, response object], in status order. */
export function declaredResponses(endpoint: Endpoint): [string, Json][] {
  return Object.entries(endpoint.responses).map(([status, r]) => [
    status,
    {
      description: r.description,
      ...(r.contentType
        ? {
            content: r.schema
              ? { [r.contentType]: { schema: documented(r.schema, false) } }
              : binaryContent(r.contentType),
          }
        : r.schema
          ? { content: { 'application/json': { schema: documented(r.schema, false) } } }
          : {}),
    },
  ]);
}

/** Components of every resource the declared endpoints answer with. */
export function declaredComponents(endpoints: readonly Endpoint[]): Record<string, Json> {
  const found = new Map<string, Json>();
  for (const endpoint of endpoints)
    for (const r of Object.values(endpoint.responses)) if (r.schema) collectResources(r.schema, found);
  return Object.fromEntries(found);
}
