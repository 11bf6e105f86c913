// Helmet's security headers on every response. With CSP off (the routes that serve HTML
// set their own), helmet's output is a constant set of headers, so it is written here once
// instead of running @fastify/helmet, which builds helmet's whole middleware chain anew for
// every request in two async hooks (~3% of the gateway's CPU on a public read). A route may
// still override one (a later reply.header wins). test/security-headers.test.ts checks this
// set against @fastify/helmet's, so a helmet upgrade that changes a default is noticed.
// A public endpoint's route (config `crossOrigin`, plugins/cors.ts) gets the same set with the
// CORS headers and `Cross-Origin-Resource-Policy: cross-origin` instead, also computed once.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CORS_HEADERS } from './cors.js';

/** What @fastify/helmet sends with `{ contentSecurityPolicy: false }` (helmet 8 defaults). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/** What a public endpoint sends: helmet's set, open to every origin (never with credentials). */
export const PUBLIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SECURITY_HEADERS,
  ...CORS_HEADERS,
});

export default fp(async function securityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(request.routeOptions.config?.crossOrigin === true ? PUBLIC_HEADERS : SECURITY_HEADERS);
    done();
  });
});
