// Who may see and do what with a key (spec: Key sharing levels).
//
// - Keys of another enterprise, live keys for a test-mode caller and test keys for a live
//   API key do not exist for the caller (NOT_FOUND, never a permission error). A live user
//   session (the person managing the enterprise) sees keys of both modes, each marked
//   with `livemode`: someone must make and revoke test keys without holding one.
// - Managing keys at all needs `admin.*` (user sessions hold it).
// - Enterprise owners and admins have the Owner level on every key of their enterprise.
// - A member has Owner on the keys they created, else the level a share gave them, else
//   no access (the key is invisible to them).
// - A key never holds more authority than its creator had when it was made: an API key
//   acts for the user who made it (or for whom the key that made it acted), with the lower
//   of that user's role then and now. An owner-made `admin.*` key manages every key; a
//   member-made one manages only what that member may.
import { HallmarkError } from '@hallmark/kit/errors';
import { ADMIN_SCOPE, hasScope } from './scopes.js';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r);

export const ACCESS_LEVELS = ['viewer', 'editor', 'admin', 'owner'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
const RANK: Record<AccessLevel, number> = { viewer: 1, editor: 2, admin: 3, owner: 4 };

/**
 * Viewer and Editor: details, usage and audit logs (the secret is never shown to anyone
 * after creation, and "use" happens with the secret, outside this service). Admin: also
 * rotate and manage permissions (update). Owner: also share and delete (revoke).
 */
export type KeyAction = 'view' | 'update' | 'rotate' | 'share' | 'revoke';
const NEEDS: Record<KeyAction, AccessLevel> = {
  view: 'viewer',
  update: 'admin',
  rotate: 'admin',
  share: 'owner',
  revoke: 'owner',
};

export type ActorType = 'user' | 'api_key';

/** The gateway's Principal, as the domain sees it. */
export interface PrincipalInput {
  enterpriseId: string;
  livemode: boolean;
  actorId: string;
  actorType: string;
  scopes: string[];
}

export interface Caller {
  enterpriseId: string;
  livemode: boolean;
  actorId: string;
  actorType: ActorType;
  role: Role;
  /** The user whose authority the caller carries: the user, or the user behind a key. */
  actsFor: string;
}

const ROLE_RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

/** The lower of two roles: a key's authority can only narrow. */
export const lowerRole = (a: Role, b: Role): Role => (ROLE_RANK[a] <= ROLE_RANK[b] ? a : b);

/** Refuses a principal that is absent or may not manage keys; returns its checked shape. */
export function checkKeyManager(p: PrincipalInput | undefined): PrincipalInput & { actorType: ActorType } {
  if (!p || !p.enterpriseId || !p.actorId || (p.actorType !== 'user' && p.actorType !== 'api_key'))
    throw new HallmarkError('missing_api_key');
  if (!hasScope(p.scopes, ADMIN_SCOPE))
    throw new HallmarkError('insufficient_permissions', { extras: { required_permission: ADMIN_SCOPE } });
  return p as PrincipalInput & { actorType: ActorType };
}

export interface KeyOwnership {
  enterpriseId: string;
  livemode: boolean;
  createdBy: string;
  /** The user the key acts for (who made it, directly or through their keys). */
  actsFor: string;
}

/** The caller's level on a key, or null when the key must look nonexistent to them. */
export function accessLevelOn(
  caller: Caller,
  key: KeyOwnership,
  shareLevel: AccessLevel | null,
): AccessLevel | null {
  if (key.enterpriseId !== caller.enterpriseId) return null;
  if (!caller.livemode && key.livemode) return null;
  if (caller.livemode && !key.livemode && caller.actorType === 'api_key') return null;
  if (caller.role === 'owner' || caller.role === 'admin') return 'owner';
  if (key.createdBy === caller.actorId || key.actsFor === caller.actsFor) return 'owner';
  return shareLevel;
}

/**
 * Whether a key the caller cannot see would be theirs to see if the request were in the other
 * mode: then its 404 may say so (Stripe's wording). The same caller sees it by switching mode,
 * so the hint reveals nothing new; a key hidden for any other reason stays a plain 404.
 */
export const visibleInOtherMode = (
  caller: Caller,
  key: KeyOwnership,
  shareLevel: AccessLevel | null,
): boolean =>
  accessLevelOn(caller, key, shareLevel) === null &&
  accessLevelOn({ ...caller, livemode: !caller.livemode }, key, shareLevel) !== null;

export const canDo = (level: AccessLevel, action: KeyAction): boolean => RANK[level] >= RANK[NEEDS[action]];

export function requireAccess(level: AccessLevel, action: KeyAction): void {
  if (!canDo(level, action))
    throw new HallmarkError('insufficient_permissions', {
      message: `Your access level on this key (${level}) does not allow this; it needs ${NEEDS[action]}.`,
      extras: { required_permission: `api_key:${NEEDS[action]}` },
    });
}

/**
 * Share permissions (spec: `read`, `rotate`) → the level granted; the highest wins.
 * `use` (→ editor) is an extension for the spec's Editor level.
 */
export const SHARE_PERMISSIONS = { read: 'viewer', use: 'editor', rotate: 'admin' } as const satisfies Record<
  string,
  AccessLevel
>;
export type SharePermission = keyof typeof SHARE_PERMISSIONS;

export function shareLevelFor(permissions: readonly string[]): {
  level: AccessLevel;
  permissions: SharePermission[];
} {
  if (permissions.length === 0)
    throw new HallmarkError('parameter_missing', {
      param: 'permissions',
      message: 'Missing required parameter: permissions.',
    });
  let level: AccessLevel = 'viewer';
  const out: SharePermission[] = [];
  for (const p of permissions) {
    if (!Object.hasOwn(SHARE_PERMISSIONS, p))
      throw new HallmarkError('parameter_invalid', {
        param: 'permissions',
        message: 'permissions may contain read and rotate.',
      });
    const granted = SHARE_PERMISSIONS[p as SharePermission];
    if (RANK[granted] > RANK[level]) level = granted;
    if (!out.includes(p as SharePermission)) out.push(p as SharePermission);
  }
  return { level, permissions: out.sort() };
}
