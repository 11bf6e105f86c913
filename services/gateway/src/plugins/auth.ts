// Authentication and authorisation for every route, from its `config.auth` and
// `config.scope`. Runs in onRequest, before the body is read, so an unauthenticated
// caller learns nothing about body validation. 401s carry the exact code; a missing
// scope or a request from outside the key's IP allowlist is a 403 naming what is needed.
import { HallmarkError, type AsyncClient } from '@hallmark/kit';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { extractCredential } from '../auth/credentials.js';
import { ipAllowed } from '../auth/ip.js';
import type { KeyVerifier } from '../auth/key-verifier.js';
import { hasAnyScope } from '../auth/scopes.js';
import type { SessionClaims, SessionVerifier } from '../auth/session.js';
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
}

const SESSION_SCOPES = ['admin.*'];
const SESSION_CACHE_MS = 60_000;

export default fp(async function auth(app: FastifyInstance, opts: AuthOptions) {
  app.decorateRequest('auth', null);
  // Routes that change a key drop this gateway's cached answer at once (other replicas
  // drop theirs on the key.* event).
  app.decorate('keyVerifier', opts.verifier);
  // Provisioning is idempotent, but one RPC per request is waste: remember it a minute.
  const sessions = new Map<string, { info: AuthInfo; until: number }>();

  async function sessionAuth(token: string): Promise<AuthInfo> {
    const claims: SessionClaims = await opts.verifySession(token);
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

  async function keyAuth(request: FastifyRequest, secret: string): Promise<AuthInfo> {
    const key = await opts.verifier.verify(secret);
    if (!ipAllowed(request.ip, key.allowed_ips)) {
      throw new HallmarkError('insufficient_permissions', {
        message: `Requests from ${request.ip} are not allowed for this key.`,
        extras: { required_permission: 'ip_allowlist' },
      });
    }
    return {
      kind: 'api_key',
      subject: key.key_id,
      key,
      principal: {
        enterprise_id: key.enterprise_id,
        livemode: key.livemode,
        actor_id: key.key_id,
        actor_type: 'api_key',
        scopes: key.permissions,
      },
    };
  }

  async function authenticate(request: FastifyRequest, reply: FastifyReply, mode: AuthMode): Promise<void> {
    const credential = extractCredential(request);
    if (credential.kind === 'none') throw new HallmarkError('missing_api_key');
    if (credential.kind === 'session') {
      if (mode === 'key')
        throw new HallmarkError('invalid_api_key', {
          message: 'This endpoint takes an API key, not a session token.',
        });
      request.auth = await sessionAuth(credential.token);
    } else {
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
      request.auth = await keyAuth(request, credential.secret);
    }
    const scope = request.routeOptions.config?.scope;
    if (scope) {
      const required = Array.isArray(scope) ? scope : [scope];
      if (!hasAnyScope(request.auth.principal.scopes, required)) {
        throw new HallmarkError('insufficient_permissions', {
          message: `This request needs the ${required.join(' or ')} permission.`,
          extras: { required_permission: required[0] },
        });
      }
    }
  }

  // A callback hook, so a public route (no credential to check) passes without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const mode = request.routeOptions.config?.auth ?? 'public';
    if (mode === 'public') return done();
    authenticate(request, reply, mode).then(() => done(), done);
  });
});
