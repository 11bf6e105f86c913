// Enterprises and users: provisioning on first use of a session token, and the caller
// behind a Principal.
import {
  HallmarkError,
  invalidParam,
  isId,
  newEvent,
  newId,
  recordEvent,
  transaction,
  type Pool,
  type Queryable,
} from '@hallmark/kit';
import { checkKeyManager, lowerRole, type Caller, type PrincipalInput, type Role } from './domain/access.js';
import { mergeSession, type SessionClaims } from './domain/session.js';
import { ensureEnterprise } from './key-store.js';

export interface SessionUser {
  userId: string;
  enterpriseId: string;
  role: Role;
}

interface UserRow {
  id: string;
  email: string | null;
  role: Role;
}

const USER_BY_SUBJECT = 'SELECT id, email, role FROM users WHERE enterprise_id = $1 AND subject = $2';

/**
 * Idempotent under concurrency: the unique (enterprise_id, subject) index decides which
 * of several first requests creates the user; the others wait for it and see the row.
 * Exactly one `user.created` is recorded; `user.updated` only when email or role changed.
 */
export async function resolveSession(pool: Pool, claims: SessionClaims, now: Date): Promise<SessionUser> {
  // Fast path without a write: a known user whose token says nothing new.
  const known = (await pool.query<UserRow>(USER_BY_SUBJECT, [claims.enterpriseId, claims.subject])).rows[0];
  if (known && !mergeSession(known, claims).changed)
    return { userId: known.id, enterpriseId: claims.enterpriseId, role: known.role };

  return transaction(pool, async (tx) => {
    await ensureEnterprise(tx, claims.enterpriseId, now);
    const inserted = await tx.query<{ id: string }>(
      `INSERT INTO users (id, enterprise_id, subject, email, role, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (enterprise_id, subject) DO NOTHING RETURNING id`,
      [newId('user'), claims.enterpriseId, claims.subject, claims.email, claims.role, now],
    );
    const event = { enterpriseId: claims.enterpriseId, livemode: true };
    if (inserted.rows[0]) {
      const id = inserted.rows[0].id;
      await recordEvent(
        tx,
        'keys',
        newEvent(
          'user.created',
          { id, email: claims.email, role: claims.role, enterprise_id: claims.enterpriseId },
          event,
        ),
      );
      return { userId: id, enterpriseId: claims.enterpriseId, role: claims.role };
    }
    const stored = (
      await tx.query<UserRow>(`${USER_BY_SUBJECT} FOR UPDATE`, [claims.enterpriseId, claims.subject])
    ).rows[0]!;
    const next = mergeSession(stored, claims);
    if (next.changed) {
      await tx.query('UPDATE users SET email = $2, role = $3, updated_at = $4 WHERE id = $1', [
        stored.id,
        next.email,
        next.role,
        now,
      ]);
      await recordEvent(
        tx,
        'keys',
        newEvent(
          'user.updated',
          { id: stored.id, email: next.email, role: next.role, enterprise_id: claims.enterpriseId },
          event,
        ),
      );
    }
    return { userId: stored.id, enterpriseId: claims.enterpriseId, role: next.role };
  });
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
 * Resolves share targets to user rows. A target is the API's `userId`: the session token's
 * `sub` (an internal `user_…` id is still understood). A subject of this enterprise that has
 * not signed in yet is provisioned now, by the same just-in-time rule as sign-in (role
 * `member`, no e-mail; its first session brings its claims), with its `user.created` event.
 */
export async function provisionUsers(
  tx: Queryable,
  enterpriseId: string,
  refs: readonly string[],
  now: Date,
): Promise<string[]> {
  const find = async () =>
    (
      await tx.query<{ id: string; subject: string }>(
        'SELECT id, subject FROM users WHERE enterprise_id = $1 AND (subject = ANY($2) OR id = ANY($2))',
        [enterpriseId, refs],
      )
    ).rows;
  let rows = await find();
  const matched = (ref: string) => rows.find((r) => r.subject === ref) ?? rows.find((r) => r.id === ref);
  const missing = [...new Set(refs.filter((ref) => !matched(ref)))];
  // A row id of another enterprise (or none) is refused like a typo, never made a subject here.
  if (missing.some((ref) => isId('user', ref)))
    throw invalidParam('userIds', 'Every userId must be a user of this enterprise (its session `sub`).');
  if (missing.length > 0) {
    await ensureEnterprise(tx, enterpriseId, now);
    for (const subject of missing) {
      const inserted = await tx.query<{ id: string }>(
        `INSERT INTO users (id, enterprise_id, subject, email, role, created_at, updated_at)
         VALUES ($1, $2, $3, NULL, 'member', $4, $4)
         ON CONFLICT (enterprise_id, subject) DO NOTHING RETURNING id`,
        [newId('user'), enterpriseId, subject, now],
      );
      if (inserted.rows[0])
        await recordEvent(
          tx,
          'keys',
          newEvent(
            'user.created',
            { id: inserted.rows[0].id, email: null, role: 'member', enterprise_id: enterpriseId },
            { enterpriseId, livemode: true },
          ),
        );
    }
    rows = await find();
  }
  const ids: string[] = [];
  for (const ref of refs) {
    const id = matched(ref)!.id;
    if (!ids.includes(id)) ids.push(id);
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
