// CORS for the public surface, from the endpoint declarations alone. A declared endpoint whose
// access is public (`auth: 'public'`: the public read, the metadata, the verification JSON, the
// verify page and its QR codes, and every public endpoint declared later) is `crossOrigin` in
// its route config (endpoint/define.ts), and then:
// - every answer carries `Access-Control-Allow-Origin: *`, the headers worth reading exposed,
//   and `Cross-Origin-Resource-Policy: cross-origin` (plugins/security-headers.ts sends this set
//   instead of helmet's same-origin one), so a marketplace's or wallet's page can fetch it;
// - its URL answers `OPTIONS` (`preflights`, registered after the routes): a CORS preflight for one
//   of its public methods is a 204 naming them, the request headers a public call may send and
//   a max age; a plain OPTIONS a 204 with `Allow`.
// Never with credentials: no `Access-Control-Allow-Credentials`, and neither `Authorization` nor
// `X-Api-Key` is an allowed request header, so a browser never sends a key or a session
// cross-origin. Every other route answers no CORS header at all: its preflight is refused (a
// 405 without Access-Control-Allow-Origin, from the not-found handler) and so is its answer, so
// a page on another origin cannot call an authenticated endpoint. Preflights are answered here without a
// service call and take no rate-limit point (the request they announce is counted); they are
// hidden from the route catalogue and the OpenAPI document (an OPTIONS an endpoint declares
// itself, e.g. a resolver's, is kept and not doubled).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** What a browser may read of a public answer besides the CORS-safelisted headers. */
const EXPOSED = [
  'ETag',
  'Link',
  'Content-Disposition',
  'Location',
  'Retry-After',
  'Warning',
  'X-Request-Id',
  'X-Cache',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
].join(', ');

/** The headers every answer of a public endpoint adds to (or changes in) helmet's set. */
export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED,
  'cross-origin-resource-policy': 'cross-origin',
});

/** Request headers a cross-origin call of a public endpoint may send (no credentials). */
export const ALLOWED_REQUEST_HEADERS = [
  'Accept',
  'Accept-Language',
  'Content-Language',
  'Content-Type',
  'Cache-Control',
  'If-None-Match',
  'If-Modified-Since',
  'X-Request-Id',
].join(', ');

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
const MAX_AGE_SEC = 7200;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Open to every origin (CORS, cross-origin resource policy): set for public endpoints. */
    crossOrigin?: boolean;
  }
  interface FastifyInstance {
    /** The public methods of each URL with a public endpoint, collected as routes register. */
    crossOriginRoutes: Map<string, Set<string>>;
  }
}

export default fp(async function cors(app: FastifyInstance) {
  const open = new Map<string, Set<string>>();
  app.decorate('crossOriginRoutes', open);
  app.addHook('onRoute', (route) => {
    if (route.config?.crossOrigin !== true) return;
    const methods = open.get(route.url) ?? new Set<string>();
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) methods.add(m);
    open.set(route.url, methods);
  });
});

/** Answers an OPTIONS: a preflight for one of `methods` with what a browser needs, else refused. */
function preflight(methods: readonly string[]) {
  const allow = [...methods, 'OPTIONS'].join(', ');
  return (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('allow', allow);
    const requested = request.headers['access-control-request-method'];
    if (requested === undefined) return reply.status(204).send();
    if (!methods.includes(String(requested))) {
      // Not a public method of this URL: a preflight without CORS headers, which the browser refuses.
      for (const name of Object.keys(CORS_HEADERS)) void reply.removeHeader(name);
      return reply.status(204).send();
    }
    return reply
      .status(204)
      .header('access-control-allow-methods', allow)
      .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
      .header('access-control-max-age', String(MAX_AGE_SEC))
      .send();
  };
}

/**
 * Registers the OPTIONS route of every URL that has a public endpoint (registered once, after
 * the routes): hidden, unlimited, answered without a service call.
 */
export const preflights = fp(async function preflights(app: FastifyInstance) {
  for (const [url, methods] of app.crossOriginRoutes) {
    if (methods.has('OPTIONS') || app.hasRoute({ method: 'OPTIONS', url })) continue;
    app.route({
      method: 'OPTIONS',
      url,
      config: { crossOrigin: true },
      schema: { hide: true },
      handler: preflight([...methods].sort()),
    });
  }
});
