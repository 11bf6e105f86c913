// Authentication and authorisation for every route, from its `config.auth` and
// `config.scope`. Runs in onRequest, before the body is read, so an unauthenticated
// caller learns nothing about body validation. 401s carry the exact code; a missing
// scope or a request from outside the key's IP allowlist is a 403 naming what is needed.
// Refused credentials are counted and throttled (auth/throttle.ts); the mode of the
// request (live or test) comes from the key, or for a session from `Hallmark-Mode`
// (auth/mode.ts).
import { HallmarkError, sha256Hex, type AsyncClient } from '@hallmark/kit';
import type { KeyAuth, KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { extractCredential } from '../auth/credentials.js';
import { ipAllowed } from '../auth/ip.js';
import type { KeyVerifier } from '../auth/key-verifier.js';
import { requestedMode, withMode } from '../auth/mode.js';
import { hasAnyScope } from '../auth/scopes.js';
import type { SessionClaims, SessionVerifier } from '../auth/session.js';
import type { AuthThrottle } from '../auth/throttle.js';
import type { AuthInfo, AuthMode } from '../auth/types.js';

declare module 'fastify' {
  interface FastifyInstance {
    keyVerifier: KeyVerifier;
  }
}

export interface AuthOptions {
  keys: AsyncClient<KeysServiceClient>;
  verifier: KeyVerifier;
  verifySession: SessionVerifier;
  throttle: AuthThrottle;
}

const SESSION_SCOPES = ['admin.*'];
const SESSION_CACHE_MS = 60_000;
/** Routes whose 2xx answer holds a new key secret: it is known good from the start. */
const ISSUING = new Set(['/api/v1/api-keys', '/api/v1/api-keys/:key_id/rotate', '/api/enterprise/api-keys']);
const SECRET_IN_BODY = /"key":"(pk_[A-Za-z0-9_]{20,80})"/;

export default fp(async function auth(app: FastifyInstance, opts: AuthOptions) {
  app.decorateRequest('auth', null);
  // Routes that change a key drop this gateway's cached answer at once (other replicas
  // drop theirs on the key.* event).
  app.decorate('keyVerifier', opts.verifier);
  // Provisioning is idempotent, but one RPC per request is waste: remember it a minute.
  const sessions = new Map<string, { info: AuthInfo; until: number }>();

  const { throttle } = opts;
  // A key's credential, built once per verified answer (a new answer, a new one) and shared
  // by its requests: nothing changes a request's `auth` after it is set (withMode copies), and
  // it is frozen so that a change would throw rather than reach the key's other requests.
  const keyInfos = new WeakMap<KeyAuth, AuthInfo>();

  /**
   * Runs one credential check; a refusal counts against the client (and the key prefix),
   * and answers 429 instead of 401 once the client is blocked. The throttle store is read
   * only here and before a lookup, never on the path of a valid, cached credential.
   */
  async function counted<T>(
    request: FastifyRequest,
    secret: string | undefined,
    check: () => Promise<T>,
  ): Promise<T> {
    try {
      return await check();
    } catch (err) {
      if (!(err instanceof HallmarkError) || err.type !== 'authentication_error') throw err;
      const wait = await throttle
        .failed(request.ip, secret)
        .then(() => throttle.blockedFor(request.ip, secret))
        .catch((e: unknown) => {
          request.log.warn({ err: e }, 'auth throttle: store failed');
          return 0;
        });
      throw wait > 0 ? throttle.refusal(wait) : err;
    }
  }

  async function sessionAuth(request: FastifyRequest, token: string): Promise<AuthInfo> {
    // A valid token always passes (checking it is local: no lookup); an invalid one counts.
    const claims: SessionClaims = await counted(request, undefined, () => opts.verifySession(token));
    const cacheKey = `${claims.ent}|${claims.sub}|${claims.email}|${claims.provenEmail}|${claims.role}`;
    const hit = sessions.get(cacheKey);
    if (hit && hit.until > Date.now()) return hit.info;
    const res = await opts.keys.resolveSession(
      { subject: claims.sub, enterprise_id: claims.ent, email: claims.email, role: claims.role },
      { idempotent: true },
    );
    const info: AuthInfo = {
      kind: 'session',
      subject: res.enterprise_id,
      userId: res.user_id,
      role: res.role,
      email: claims.provenEmail,
      principal: {
        enterprise_id: res.enterprise_id,
        livemode: true,
        actor_id: res.user_id,
        actor_type: 'user',
        scopes: SESSION_SCOPES,
      },
    };
    if (sessions.size > 10_000) sessions.clear();
    sessions.set(cacheKey, { info, until: Date.now() + SESSION_CACHE_MS });
    return info;
  }

  /** The request's credential for a key `verify` (or the cache) accepted: IP allowlist checked. */
  function keyInfo(request: FastifyRequest, hash: string, key: KeyAuth): AuthInfo {
    throttle.markGood(hash, (e) => request.log.warn({ err: e }, 'auth throttle: store failed'));
    if (!ipAllowed(request.ip, key.allowed_ips)) {
      throw new HallmarkError('insufficient_permissions', {
        message: `Requests from ${request.ip} are not allowed for this key.`,
        extras: { required_permission: 'ip_allowlist' },
      });
    }
    let info = keyInfos.get(key);
    if (!info) {
      info = Object.freeze({
        kind: 'api_key',
        subject: key.key_id,
        key,
        principal: Object.freeze({
          enterprise_id: key.enterprise_id,
          livemode: key.livemode,
          actor_id: key.key_id,
          actor_type: 'api_key',
          scopes: key.permissions,
        }),
      } as const);
      keyInfos.set(key, info);
    }
    return info;
  }

  /** A key with no fresh valid answer cached: throttled, looked up, refusals counted. */
  async function keyAuth(request: FastifyRequest, secret: string, hash: string): Promise<AuthInfo> {
    // A key that needs a lookup, from a blocked client: only a key known good goes on.
    if (opts.verifier.needsLookup(secret, hash)) {
      const wait = await throttle.blockedFor(request.ip, secret);
      if (wait > 0 && !(await throttle.isKnownGood(secret))) throw throttle.refusal(wait);
    }
    return keyInfo(request, hash, await counted(request, secret, () => opts.verifier.verify(secret, hash)));
  }

  /**
   * Sets `request.auth` from the request's credential, or throws. Answers a promise only when
   * it must wait (a session, a key to look up or refuse); a key with a fresh valid cached
   * answer (nearly every keyed request) is checked synchronously: exactly what `keyAuth`
   * would decide for it (`verify` answers it from the cache), without its promises.
   */
  function authenticate(request: FastifyRequest, reply: FastifyReply, mode: AuthMode): Promise<void> | void {
    const credential = extractCredential(request);
    if (credential.kind === 'none') throw new HallmarkError('missing_api_key');
    if (credential.kind === 'session') {
      if (mode === 'key')
        throw new HallmarkError('invalid_api_key', {
          message: 'This endpoint takes an API key, not a session token.',
        });
      return sessionAuth(request, credential.token).then((info) => accept(request, info));
    }
    if (mode === 'session') {
      throw new HallmarkError('invalid_token', {
        message: 'This endpoint takes a user session token, not an API key.',
      });
    }
    if (credential.fromQuery) {
      // The credential is not a parameter of the route: routes' query schemas refuse
      // unknown names, and the secret must not travel further than this check.
      delete (request.query as Record<string, unknown>).api_key;
      void reply.header(
        'warning',
        '299 - "api_key in the query string is deprecated; send the Authorization header"',
      );
    }
    // Hashed once: the cache, the lookup and the known-good mark all go by this hash.
    const hash = sha256Hex(credential.secret);
    const cached = opts.verifier.cachedValid(hash);
    if (cached) return accept(request, keyInfo(request, hash, cached));
    return keyAuth(request, credential.secret, hash).then((info) => accept(request, info));
  }

  /** Sets the request's credential (in its mode), then checks the route's scope against it. */
  function accept(request: FastifyRequest, info: AuthInfo): void {
    request.auth = withMode(info, requestedMode(request));
    checkScope(request, request.auth);
  }

  function checkScope(request: FastifyRequest, auth: AuthInfo): void {
    const scope = request.routeOptions.config?.scope;
    if (scope) {
      const required = Array.isArray(scope) ? scope : [scope];
      if (!hasAnyScope(auth.principal.scopes, required)) {
        throw new HallmarkError('insufficient_permissions', {
          message: `This request needs the ${required.join(' or ')} permission.`,
          extras: { required_permission: required[0] },
        });
      }
    }
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode < 300 && request.method === 'POST' && ISSUING.has(request.routeOptions.url ?? '')) {
      const secret = typeof payload === 'string' ? SECRET_IN_BODY.exec(payload)?.[1] : undefined;
      if (secret) void throttle.rememberGood(secret).catch(() => undefined);
    }
    done(null, payload);
  });

  // A callback hook, so a public route (no credential to check) and a key with a cached
  // answer pass without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const mode = request.routeOptions.config?.auth ?? 'public';
    if (mode === 'public') return done();
    let waiting: Promise<void> | void;
    try {
      waiting = authenticate(request, reply, mode);
    } catch (err) {
      return done(err as Error);
    }
    if (waiting) waiting.then(() => done(), done);
    else done();
  });
});
