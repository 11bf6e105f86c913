// Who may do what with a template (spec: Authentication 15). The owner has every right;
// anyone else has the levels granted to them, and any grant lets them read. Refusals
// never reveal more than the caller may know: no right at all is "not found", a reader
// lacking write or delete is "forbidden".
import { HallmarkError, invalidParam, notFound } from '@hallmark/kit/errors';

export const ACCESS_LEVELS = ['read', 'write', 'delete'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** The effective rights of `actorId` on a template owned by `ownerId` with `granted` levels. */
export function effectiveAccess(ownerId: string, actorId: string, granted: readonly string[]): AccessLevel[] {
  if (ownerId === actorId) return [...ACCESS_LEVELS];
  const set = new Set(granted);
  if (set.size === 0) return [];
  return ACCESS_LEVELS.filter((l) => l === 'read' || set.has(l));
}

/**
 * Throws unless `access` includes `need`. `isOwnerOnly` is for grant management, which
 * only the owner may do.
 */
export function requireAccess(
  templateId: string,
  access: readonly AccessLevel[],
  need: AccessLevel | 'owner',
  isOwner = false,
): void {
  if (access.length === 0) throw notFound('template', templateId);
  if (need === 'owner' ? isOwner : access.includes(need)) return;
  throw new HallmarkError('insufficient_permissions', {
    message:
      need === 'owner'
        ? 'Only the template owner can change who has access.'
        : `You need ${need} access to this template.`,
    extras: { required_permission: need === 'owner' ? 'template.owner' : `template.${need}` },
  });
}

export function parseLevels(list: readonly string[], param: string, allowEmpty: boolean): AccessLevel[] {
  if (list.length === 0 && !allowEmpty)
    throw invalidParam(param, `${param} needs at least one of read, write, delete.`);
  for (const l of list) {
    if (!ACCESS_LEVELS.includes(l as AccessLevel))
      throw invalidParam(param, `Invalid ${param}: '${l}' is not one of read, write, delete.`);
  }
  return ACCESS_LEVELS.filter((l) => list.includes(l));
}

/** Grantees are actors of the caller's enterprise: users (user_…) or API keys (apikey_…). */
export const GRANTEE = /^(user|apikey)_[0-9A-Za-z]{1,64}$/;
