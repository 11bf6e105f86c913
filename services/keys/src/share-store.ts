// Key shares: which users of the enterprise may see or manage a key they did not create.
import type { Queryable } from '@hallmark/kit';
import type { AccessLevel, SharePermission } from './domain/access.js';

export interface ShareRecord {
  userId: string;
  level: AccessLevel;
  permissions: string[];
  createdAt: Date;
}

/** Grants (or replaces) each user's share; the newest grant is the one that holds. */
export async function upsertShares(
  q: Queryable,
  keyId: string,
  userIds: readonly string[],
  grant: { level: AccessLevel; permissions: SharePermission[] },
  now: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO key_shares (key_id, user_id, level, permissions, created_at, updated_at)
     SELECT $1, u, $3, $4, $5, $5 FROM unnest($2::text[]) AS u ORDER BY u
     ON CONFLICT (key_id, user_id) DO UPDATE SET level = EXCLUDED.level, permissions = EXCLUDED.permissions,
       updated_at = EXCLUDED.updated_at`,
    [keyId, userIds, grant.level, grant.permissions, now],
  );
}

export async function listShares(q: Queryable, keyId: string): Promise<ShareRecord[]> {
  const { rows } = await q.query<{
    user_id: string;
    level: AccessLevel;
    permissions: string[];
    created_at: Date;
  }>(
    // The API names users by their session subject (`sub`), not the row id.
    `SELECT coalesce(u.subject, s.user_id) AS user_id, s.level, s.permissions, s.created_at
       FROM key_shares s LEFT JOIN users u ON u.id = s.user_id
      WHERE s.key_id = $1 ORDER BY s.created_at, s.user_id`,
    [keyId],
  );
  return rows.map((r) => ({
    userId: r.user_id,
    level: r.level,
    permissions: r.permissions,
    createdAt: r.created_at,
  }));
}
