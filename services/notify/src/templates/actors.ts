// Who the actors of a template are, as the keys service knows them (CheckActors over gRPC):
// the row id notify stores for a ref (a session `sub`, a `user_…` row id, an `apikey_…` id)
// and the id the API shows for a row id. Notify keeps grants by row id and knows no users;
// keys owns them, so this is asked, never copied: a grant must name an actor of the
// enterprise as it is now, and a failure to ask fails the call (fail closed).
import type { AsyncClient } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';

export interface ActorName {
  /** As asked. */
  ref: string;
  /** The row id services store. */
  id: string;
  /** The id the API shows (a user's session `sub`, a key's id). */
  display: string;
}

/** The refs of `refs` that are actors of the principal's enterprise, each named both ways. */
export type CheckActors = (principal: Principal, refs: readonly string[]) => Promise<ActorName[]>;

/** Bound on one ask; keys answers from one indexed read. */
const DEADLINE_MS = 5000;

export function grpcCheckActors(keys: Pick<AsyncClient<KeysServiceClient>, 'checkActors'>): CheckActors {
  return async (principal, refs) =>
    (
      await keys.checkActors(
        { principal, actor_ids: [...refs] },
        { idempotent: true, deadlineMs: DEADLINE_MS },
      )
    ).actors;
}
