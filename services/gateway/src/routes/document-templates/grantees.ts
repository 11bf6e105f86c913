// Template grants name users (or API keys) of the caller's own enterprise only, and name a
// user by the API's user id: the session's `sub`. The notify service keeps grants by row id
// and knows no users; the keys service does, so the gateway asks it to translate both ways
// (CheckActors): a `sub` (or row id, or key id) in, the row id to notify; row ids out, the
// `sub` to the client. An id of another enterprise (or none at all) is refused like a typo,
// without saying whether it exists elsewhere.
import { HallmarkError, type AsyncClient } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';

type Keys = AsyncClient<KeysServiceClient>;

/** The row ids of `refs` (in order); a ref that is no actor of the enterprise is a 400 on `param`. */
export async function checkGrantees(
  keys: Keys,
  principal: Principal,
  refs: readonly string[],
  param = 'userIds',
): Promise<string[]> {
  const { actors } = await keys.checkActors({ principal, actor_ids: [...refs] }, { idempotent: true });
  const byRef = new Map(actors.map((a) => [a.ref, a.id]));
  const stranger = refs.find((ref) => !byRef.has(ref));
  if (stranger !== undefined)
    throw new HallmarkError('parameter_invalid', {
      param,
      message: `'${stranger}' is not a user or API key of your enterprise.`,
    });
  return refs.map((ref) => byRef.get(ref)!);
}

/** How the API names each of `ids` (row ids): a user by `sub`, a key by its id; unknown ids as they are. */
export async function displayNames(keys: Keys, principal: Principal, ids: readonly string[]) {
  const unique = [...new Set(ids.filter(Boolean))];
  if (unique.length === 0) return (id: string) => id;
  const { actors } = await keys.checkActors({ principal, actor_ids: unique }, { idempotent: true });
  const byId = new Map(actors.map((a) => [a.id, a.display]));
  return (id: string) => byId.get(id) ?? id;
}
