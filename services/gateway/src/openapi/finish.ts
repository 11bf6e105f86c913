// Completes the document @fastify/swagger builds from the route schemas, so every operation
// has what a generated client needs: a stable operationId, defined tags, a description, its
// security requirement, its real success status with a schema, and its error responses in
// its surface's shape with the rate-limit headers. Documentation only: nothing here changes
// how a request is validated or an answer serialised.
import type { CatalogEntry } from '../plugins/route-catalog.js';
import { surfaceOf } from '../surface.js';
import {
  errorResponses,
  headers,
  rateLimitHeaders,
  responseName,
  schemas,
  securitySchemes,
  tags,
  type Surface,
} from './components.js';
import { declaredComponents, declaredResponses } from './declared.js';
import { GUIDE } from './guide.js';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const KEY_SCHEMES = [{ bearerAuth: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }];

/** Public routes a third party authenticates by signing the request instead of a credential. */
const SIGNED_BY_CALLER: Record<string, Json[]> = {
  'POST /api/platform/webhooks': [{ platformHmac: [] }],
};

function securityOf(entry: CatalogEntry | undefined): Json[] {
  switch (entry?.auth ?? 'public') {
    case 'public':
      return [];
    case 'session':
      return [{ sessionJwt: [] }];
    case 'key':
      return KEY_SCHEMES;
    default:
      return [...KEY_SCHEMES, { sessionJwt: [] }];
  }
}

function authLine(entry: CatalogEntry | undefined): string {
  const auth = entry?.auth ?? 'public';
  const who =
    auth === 'public'
      ? 'Public: no credential.'
      : auth === 'session'
        ? 'A user session token only.'
        : auth === 'key'
          ? 'An API key.'
          : 'An API key or a user session token.';
  const scopes = entry?.scopes.length ? ` Scope: ${entry.scopes.map((s) => `\`${s}\``).join(' or ')}.` : '';
  const group = entry?.rateGroup ? ` Rate group \`${entry.rateGroup}\` (spec › Limits).` : '';
  return `${who}${scopes}${group}`;
}

const withRateHeaders = (response: Json) => ({
  ...response,
  headers: { ...rateLimitHeaders, ...response.headers },
});

function errorStatuses(key: string, path: string, method: string, entry: CatalogEntry | undefined): string[] {
  const out = ['400'];
  if ((entry?.auth ?? 'public') !== 'public') out.push('401', '403');
  // A public route the caller signs refuses a wrong signature.
  else if (SIGNED_BY_CALLER[key]) out.push('401');
  out.push('404');
  if (path.includes('{')) out.push('414');
  // A write can meet the object's state: a conflict (409: a code or key that exists, a job
  // already running) or a semantic refusal (422: an expired, inactive or used-up voucher).
  if (method !== 'get') out.push('409', '413', '422');
  out.push('429', '500', '502', '503', '504');
  return out;
}

export function finishDocument(doc: Json, catalog: readonly CatalogEntry[]): Json {
  const byKey = new Map(catalog.map((e) => [`${e.method} ${e.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`, e]));
  // Every operation in the document is a declaration (endpoint/define.ts): its operationId,
  // answers and resources come from there and nowhere else.
  const undeclared: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const surface: Surface = surfaceOf(path) === 'api' ? 'api' : 'v1';
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      const op = item[method] as Json;
      const key = `${method.toUpperCase()} ${path}`;
      const entry = byKey.get(key);
      const endpoint = entry?.endpoint;
      if (!entry || !endpoint?.operationId) {
        undeclared.push(key);
        continue;
      }
      op.operationId = endpoint.operationId;
      op.description = [op.description ?? op.summary ?? '', authLine(entry)].filter(Boolean).join('\n\n');
      op.security = SIGNED_BY_CALLER[key] ?? securityOf(entry);
      // Any one of these scopes admits the caller (a session holds `admin.*`).
      if (entry.scopes.length) op['x-required-scopes'] = entry.scopes;
      const responses: Json = {};
      for (const [status, response] of declaredResponses(endpoint)) responses[status] = response;
      for (const [status, response] of Object.entries<Json>(responses))
        if (/^[24]/.test(status) && !response.$ref) responses[status] = withRateHeaders(response);
      // A page that declares its own 400 (the tap page's "wrong signature") is still refused in
      // JSON by the gateway when a parameter is malformed, before the page is reached: both.
      const page400 = responses['400'] as Json | undefined;
      if (page400?.content && !page400.content['application/json'])
        page400.content['application/json'] = {
          schema: { $ref: `#/components/schemas/${surface === 'v1' ? 'ErrorEnvelope' : 'ApiError'}` },
        };
      for (const status of errorStatuses(key, path, method, entry))
        responses[status] ??= { $ref: `#/components/responses/${responseName(surface, status)}` };
      op.responses = responses;
    }
  }
  if (undeclared.length > 0)
    throw new Error(`operations not declared with defineEndpoint (an operationId): ${undeclared.join(', ')}`);
  doc.info = {
    ...doc.info,
    description: GUIDE,
    license: { name: 'Proprietary', identifier: 'LicenseRef-Hallmark' },
    contact: { name: 'Hallmark API', url: 'https://github.com/hallmark' },
  };
  doc.servers = [
    {
      url: '{baseUrl}',
      description:
        'The service base address (spec: {base_url}) of a production or test deployment; the local dev stack ' +
        'listens on http://127.0.0.1:8080',
      'x-internal': false,
      variables: { baseUrl: { default: 'https://localhost:8080' } },
    },
  ];
  doc.tags = tags;
  const components = declaredComponents(catalog.flatMap((e) => (e.endpoint ? [e.endpoint] : [])));
  doc.components = {
    ...doc.components,
    schemas: { ...doc.components?.schemas, ...schemas, ...components },
    responses: errorResponses(),
    headers,
    securitySchemes,
  };
  return doc;
}
