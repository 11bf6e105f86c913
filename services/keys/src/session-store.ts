// SQL of users: provisioning on first use of a session token (service.ts holds the
// transaction), the caller behind a Principal, share targets (users the enterprise knows) and
// the names the API shows for actors (a user's session `sub`).
import { HallmarkError, newId, type Queryable } from '@hallmark/kit';
import { checkKeyManager, lowerRole, type Caller, type PrincipalInput, type Role } from './domain/access.js';
import type { SessionClaims } from './domain/session.js';

export interface SessionUser {
  userId: string;
  enterpriseId: string;
  role: Role;
}

export interface UserRow {
  id: string;
  email: string | null;
  role: Role;
}

const USER_BY_SUBJECT = 'SELECT id, email, role FROM users WHERE enterprise_id = $1 AND subject = $2';

/** The user of a token subject in the enterprise, if known (locked with `lock`). */
export async function userBySubject(
  q: Queryable,
  enterpriseId: string,
  subject: string,
  opts: { lock?: boolean } = {},
): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(`${USER_BY_SUBJECT}${opts.lock ? ' FOR UPDATE' : ''}`, [
    enterpriseId,
    subject,
  ]);
  return rows[0] ?? null;
}

/**
 * Inserts the user of a token subject unless one exists; its id, or null when another
 * request created it first (the unique (enterprise_id, subject) index decides, and this one
 * waits for that request to commit).
 */
export async function insertUserIfNew(
  tx: Queryable,
  claims: SessionClaims,
  now: Date,
): Promise<string | null> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO users (id, enterprise_id, subject, email, role, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)
     ON CONFLICT (enterprise_id, subject) DO NOTHING RETURNING id`,
    [newId('user'), claims.enterpriseId, claims.subject, claims.email, claims.role, now],
  );
  return rows[0]?.id ?? null;
}

export async function updateUser(
  tx: Queryable,
  id: string,
  next: { email: string | null; role: Role },
  now: Date,
): Promise<void> {
  await tx.query('UPDATE users SET email = $2, role = $3, updated_at = $4 WHERE id = $1', [
    id,
    next.email,
    next.role,
    now,
  ]);
}

/**
 * The caller behind a Principal. Users act with their stored role. An API key acts for the
 * user who made it, with the lower of the role it was made with and that user's role now,
 * so a key never holds more authority than its maker; a key this enterprise does not know
 * manages nothing (fail closed).
 */
export async function loadCaller(q: Queryable, principal: PrincipalInput | undefined): Promise<Caller> {
  const p = checkKeyManager(principal);
  const base = { enterpriseId: p.enterpriseId, livemode: p.livemode, actorId: p.actorId };
  if (p.actorType === 'api_key') {
    const { rows } = await q.query<{ acts_for: string; creator_role: Role; user_role: Role | null }>(
      `SELECT k.acts_for, k.creator_role, u.role AS user_role
         FROM api_keys k LEFT JOIN users u ON u.id = k.acts_for AND u.enterprise_id = k.enterprise_id
        WHERE k.id = $1 AND k.enterprise_id = $2`,
      [p.actorId, p.enterpriseId],
    );
    const key = rows[0];
    if (!key)
      throw new HallmarkError('insufficient_permissions', {
        message: 'This API key is not known in this enterprise.',
      });
    const role = key.user_role ? lowerRole(key.creator_role, key.user_role) : key.creator_role;
    return { ...base, actorType: 'api_key', role, actsFor: key.acts_for };
  }
  const { rows } = await q.query<{ role: Role }>(
    'SELECT role FROM users WHERE id = $1 AND enterprise_id = $2',
    [p.actorId, p.enterpriseId],
  );
  if (!rows[0])
    throw new HallmarkError('insufficient_permissions', {
      message: 'The session user is not known in this enterprise.',
    });
  return { ...base, actorType: 'user', role: rows[0].role, actsFor: p.actorId };
}

/**
 * Resolves share targets to user rows of the enterprise. A target is the API's `userId`: the
 * session token's `sub` (an internal `user_…` id is still understood). Only users this
 * enterprise knows (signed in at least once) are targets: keys cannot tell a colleague who has
 * not signed in from a typo or another enterprise's user, so anything else is 404 and nothing
 * is written (fail closed; the template grants' rule too).
 */
export async function enterpriseUsers(
  tx: Queryable,
  enterpriseId: string,
  refs: readonly string[],
): Promise<string[]> {
  const { rows } = await tx.query<{ id: string; subject: string }>(
    'SELECT id, subject FROM users WHERE enterprise_id = $1 AND (subject = ANY($2) OR id = ANY($2))',
    [enterpriseId, refs],
  );
  const ids: string[] = [];
  for (const ref of refs) {
    const row = rows.find((r) => r.subject === ref) ?? rows.find((r) => r.id === ref);
    if (!row)
      throw new HallmarkError('resource_not_found', {
        param: 'userIds',
        message: `No user '${ref.slice(0, 64)}' in this enterprise (a user is known once they have signed in).`,
      });
    if (!ids.includes(row.id)) ids.push(row.id);
  }
  return ids;
}

/** `refs` that name users (by `sub` or row id) or API keys of the enterprise, with both names. */
export async function actorNames(
  q: Queryable,
  enterpriseId: string,
  refs: readonly string[],
): Promise<{ ref: string; id: string; display: string }[]> {
  const { rows } = await q.query<{ id: string; subject: string | null }>(
    `SELECT id, subject FROM users WHERE enterprise_id = $1 AND (id = ANY($2::text[]) OR subject = ANY($2::text[]))
     UNION ALL SELECT id, NULL FROM api_keys WHERE enterprise_id = $1 AND id = ANY($2::text[])`,
    [enterpriseId, [...refs]],
  );
  const out: { ref: string; id: string; display: string }[] = [];
  for (const ref of new Set(refs)) {
    const row = rows.find((r) => r.subject === ref) ?? rows.find((r) => r.id === ref);
    if (row) out.push({ ref, id: row.id, display: row.subject ?? row.id });
  }
  return out;
}
