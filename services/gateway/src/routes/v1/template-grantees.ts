// Template grants name users (or API keys) of the caller's own enterprise only. The notify
// service keeps grants but knows no users; the keys service does, so the gateway asks it
// before a grant is written. An id of another enterprise (or none at all) is refused like a
// typo, without saying whether it exists elsewhere.
import { HallmarkError, type AsyncClient } from '@hallmark/kit';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';

export async function checkGrantees(
  keys: AsyncClient<KeysServiceClient>,
  principal: Principal,
  ids: readonly string[],
): Promise<void> {
  const { known_ids } = await keys.checkActors({ principal, actor_ids: [...ids] }, { idempotent: true });
  const known = new Set(known_ids);
  const stranger = ids.find((id) => !known.has(id));
  if (stranger !== undefined)
    throw new HallmarkError('parameter_invalid', {
      param: 'userIds',
      message: `'${stranger}' is not a user or API key of your enterprise.`,
    });
}
