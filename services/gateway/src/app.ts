// The gateway as Fastify plugins: external ones (swagger), app ones (request context, error
// rendering, helmet's security headers, auth, rate limits, access log), then the routes, one
// folder per resource (routes/index.ts).
import { createLogger, REQUEST_ID_HEADER, requestIdFrom } from '@hallmark/kit';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { KeyVerifier } from './auth/key-verifier.js';
import type { SessionVerifier } from './auth/session.js';
import { PublicCache } from './cache/public-cache.js';
import { AuthThrottle } from './auth/throttle.js';
import type { UsageRecorder } from './auth/usage-recorder.js';
import type { Clients } from './clients.js';
import type { Config } from './config.js';
import accessLog from './plugins/access-log.js';
import auth from './plugins/auth.js';
import controlChars from './plugins/control-chars.js';
import cors, { preflights } from './plugins/cors.js';
import errors, { clientError, frameworkError } from './plugins/errors.js';
import openapi from './plugins/openapi.js';
import rateLimit from './plugins/rate-limit.js';
import requestContext from './plugins/request-context.js';
import routeCatalog from './plugins/route-catalog.js';
import schemaBounds from './plugins/schema-bounds.js';
import securityHeaders from './plugins/security-headers.js';
import routes from './routes/index.js';

/** Longest path parameter the router matches (ids are ≤ 64, order ids ≤ 255). */
export const MAX_PARAM_LENGTH = 512;

export interface AppDeps {
  config: Config;
  clients: Clients;
  verifier: KeyVerifier;
  verifySession: SessionVerifier;
  usage: UsageRecorder;
  redis?: Redis;
  /** The public cache; one from the config when not given (route tests). */
  publicCache?: PublicCache;
  logLevel?: string;
  /** Extra routes (benchmarks mount trivial handlers to measure the gateway's own cost). */
  extraRoutes?: (app: FastifyInstance) => void;
}

export async function buildApp(deps: AppDeps) {
  const app = Fastify({
    loggerInstance: createLogger('gateway', deps.logLevel ?? deps.config.LOG_LEVEL),
    // A well-formed incoming X-Request-Id is kept (plugins/request-context.ts), else a fresh one.
    genReqId: (req) => requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    bodyLimit: deps.config.HALLMARK_BODY_LIMIT_BYTES,
    // request.ip is the client every limit and allowlist sees: the socket's peer, or, from a
    // configured proxy only, the nearest X-Forwarded-For hop it does not trust (proxy-addr).
    trustProxy: deps.config.HALLMARK_TRUSTED_PROXIES.length ? deps.config.HALLMARK_TRUSTED_PROXIES : false,
    // Our own completion log line (plugins/access-log.ts) never prints the query string,
    // which may hold a discouraged `api_key`.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    return503OnClosing: true,
    // Ids are at most a few hundred characters: past this the router refuses the path itself,
    // answered in the envelope by `frameworkErrors` (414), not in Fastify's own body.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    ajv: {
      // Closed schemas reject unknown fields (parameter_unknown) instead of dropping them.
      // strictNumbers: NaN and ±Infinity (`1e999` in JSON or a path) are not numbers.
      customOptions: {
        removeAdditional: false,
        allErrors: true,
        coerceTypes: 'array',
        useDefaults: true,
        strictNumbers: true,
      },
    },
  });
  // JSON only: a text/plain body is 415 → 400 invalid_content_type, not a string that
  // fails "body must be object".
  app.removeContentTypeParser('text/plain');
  await app.register(requestContext);
  await app.register(errors);
  await app.register(securityHeaders); // helmet's headers, computed once (CORS on public routes)
  await app.register(cors); // collects the public endpoints' URLs for their preflights
  await app.register(routeCatalog);
  await app.register(schemaBounds); // every number bounded before swagger reads the schemas
  await app.register(openapi);
  const { config } = deps;
  await app.register(auth, {
    keys: deps.clients.keys,
    verifier: deps.verifier,
    verifySession: deps.verifySession,
    throttle: new AuthThrottle(
      {
        perAddress: config.HALLMARK_AUTH_FAILURES_PER_ADDRESS,
        perKeyPrefix: config.HALLMARK_AUTH_FAILURES_PER_KEY_PREFIX,
        windowSec: config.HALLMARK_AUTH_FAILURE_WINDOW_SEC,
        blockSec: config.HALLMARK_AUTH_FAILURE_BLOCK_SEC,
      },
      deps.redis,
    ),
  });
  await app.register(rateLimit, { redis: deps.redis });
  await app.register(controlChars); // NUL and C0 controls refused in every route's text
  await app.register(accessLog, { usage: deps.usage });
  const publicCache = deps.publicCache ?? publicCacheOf(config);
  app.decorate('publicCache', publicCache);
  await app.register(routes, { clients: deps.clients, config: deps.config, publicCache });
  await app.register(preflights); // OPTIONS of every public endpoint's URL, once all are known
  if (deps.extraRoutes) await app.register(async (scope) => deps.extraRoutes!(scope));
  return app;
}

/** The public cache the config describes. */
export function publicCacheOf(config: Config): PublicCache {
  return new PublicCache({
    maxEntries: config.HALLMARK_PUBLIC_CACHE_MAX_ENTRIES,
    maxBytes: config.HALLMARK_PUBLIC_CACHE_MAX_BYTES,
    ttlMs: config.HALLMARK_PUBLIC_CACHE_TTL_MS,
    notFoundTtlMs: config.HALLMARK_PUBLIC_CACHE_NOT_FOUND_TTL_MS,
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    publicCache: PublicCache;
  }
}

export type App = Awaited<ReturnType<typeof buildApp>>;
