// The caller of a gRPC request, as every service's rpc.ts reads it: the gateway puts the
// authenticated principal on each request; a request without one is a bug in the caller, so
// it fails closed with parameter_missing rather than acting for nobody.
import type { Principal } from '@hallmark/proto/common/v1/common';
import { missingParam } from '../errors.js';

/**
 * Who a service acts for. Each service's own `Scope` names the fields it uses (a subset of
 * these), so this value is passed where that `Scope` is asked for.
 */
export interface CallerScope {
  enterpriseId: string;
  livemode: boolean;
  /** `user_…` for a session, `apikey_…` for an API key (empty when the caller named none). */
  actorId: string;
  /** "user" or "api_key". */
  actorType: string;
}

/** The request's principal; parameter_missing when there is none (or it names no enterprise). */
export function requirePrincipal(p: Principal | undefined): Principal {
  if (!p?.enterprise_id) throw missingParam('principal');
  return p;
}

/**
 * The scope of the request's principal. `actor: 'required'` also refuses a principal without
 * an actor (for what records who did it: an owner, a grant's subject).
 */
export function scopeOf(p: Principal | undefined, opts: { actor?: 'required' } = {}): CallerScope {
  const { enterprise_id, livemode, actor_id, actor_type } = requirePrincipal(p);
  if (opts.actor === 'required' && !actor_id) throw missingParam('principal.actor_id');
  return { enterpriseId: enterprise_id, livemode, actorId: actor_id, actorType: actor_type };
}
