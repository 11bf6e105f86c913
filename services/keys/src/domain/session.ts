// Session claims → the user record they provision (architecture.md › Users and
// enterprises). The token is authoritative for the role: a token without a role claim
// makes the user a member (least privilege). A token without an email keeps the email
// already on record.
import { HallmarkError } from '@hallmark/kit/errors';
import { isId } from '@hallmark/kit/ids';
import { isRole, type Role } from './access.js';

export interface SessionClaimsInput {
  subject: string;
  enterpriseId: string;
  email: string;
  role: string;
}

export interface SessionClaims {
  subject: string;
  enterpriseId: string;
  email: string | null;
  role: Role;
}

const invalidToken = (message: string) => new HallmarkError('invalid_token', { message });

export function validateSessionClaims(input: SessionClaimsInput): SessionClaims {
  if (!input.subject || input.subject.length > 255)
    throw invalidToken('The session token has no usable sub claim.');
  if (!isId('enterprise', input.enterpriseId))
    throw invalidToken('The session token has no usable ent claim.');
  if (input.email.length > 320) throw invalidToken('The session token has an unusable email claim.');
  const role = input.role === '' ? 'member' : input.role;
  if (!isRole(role)) throw invalidToken('The session token has an unknown role claim.');
  return { subject: input.subject, enterpriseId: input.enterpriseId, email: input.email || null, role };
}

/** The most a session `sub` may be (validateSessionClaims), as a share target names a user. */
const SUBJECT_MAX = 255;

/**
 * Whether `ref` could name a user at all: a session `sub` (or `user_…` id) is 1–255 characters
 * with no whitespace or control character. Anything else is a malformed id (400), not an
 * unknown user (404).
 */
export function isUserRef(ref: string): boolean {
  return ref.length > 0 && ref.length <= SUBJECT_MAX && !/[\s\p{C}]/u.test(ref);
}

export interface UserFacts {
  email: string | null;
  role: Role;
}

/** The user's facts after this sign-in, and whether they differ from what is stored. */
export function mergeSession(stored: UserFacts, claims: SessionClaims): UserFacts & { changed: boolean } {
  const email = claims.email ?? stored.email;
  const changed = email !== stored.email || claims.role !== stored.role;
  return { email, role: claims.role, changed };
}
