// Row shapes of the keys database, the queries several modules share, and all SQL of API keys
// and their secrets (create, verify, list, update, revoke, rotate).
import { HallmarkError, notFound, notFoundInOtherMode, isId, type Queryable } from '@hallmark/kit';
import { isIP } from 'node:net';
import {
  accessLevelOn,
  requireAccess,
  visibleInOtherMode,
  type AccessLevel,
  type Caller,
  type KeyAction,
  type Role,
} from './domain/access.js';
import type { AuditAction } from './domain/audit.js';
import type { ApiKeyRecord, KeyType } from './domain/keys.js';

export const KEY_COLUMNS = `k.id, k.enterprise_id, k.name, k.type, k.livemode, k.permissions, k.rate_limit_per_minute,
  k.requests_per_hour, k.burst_limit, k.allowed_ips, k.key_prefix, k.expires_at, k.created_at, k.created_by,
  k.acts_for, k.creator_role, k.last_used_at, k.revoked_at`;

export interface KeyRow {
  id: string;
  enterprise_id: string;
  name: string;
  type: KeyType;
  livemode: boolean;
  permissions: string[];
  rate_limit_per_minute: number;
  requests_per_hour: number;
  burst_limit: number;
  allowed_ips: string[];
  key_prefix: string;
  expires_at: Date | null;
  created_at: Date;
  created_by: string;
  acts_for: string;
  creator_role: Role;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export function toKeyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    enterpriseId: row.enterprise_id,
    name: row.name,
    type: row.type,
    livemode: row.livemode,
    permissions: row.permissions,
    limits: { perMinute: row.rate_limit_per_minute, perHour: row.requests_per_hour, burst: row.burst_limit },
    allowedIps: row.allowed_ips,
    keyPrefix: row.key_prefix,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    createdBy: row.created_by,
    actsFor: row.acts_for,
    creatorRole: row.creator_role,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** A key as one caller sees it. */
export interface KeyView {
  key: ApiKeyRecord;
  accessLevel: AccessLevel;
}

/**
 * Loads a key for `caller` and checks they may do `action` on it. A key the caller may
 * not see (other enterprise, live key for a test-mode caller, member without a share)
 * is reported as not found, exactly like a key that does not exist; when the caller would
 * see it in the other mode, the 404 says so (visibleInOtherMode).
 */
export async function keyFor(
  q: Queryable,
  caller: Caller,
  keyId: string,
  action: KeyAction,
  opts: { lock?: boolean } = {},
): Promise<KeyView> {
  if (!isId('apiKey', keyId)) throw notFound('api_key', keyId.slice(0, 64));
  const { rows } = await q.query<KeyRow & { share_level: AccessLevel | null }>(
    `SELECT ${KEY_COLUMNS}, s.level AS share_level
       FROM api_keys k LEFT JOIN key_shares s ON s.key_id = k.id AND s.user_id = $2
      WHERE k.id = $1 AND k.enterprise_id = $3${opts.lock ? ' FOR UPDATE OF k' : ''}`,
    [keyId, caller.actsFor, caller.enterpriseId],
  );
  const row = rows[0];
  const key = row ? toKeyRecord(row) : null;
  const level = key && row ? accessLevelOn(caller, key, row.share_level) : null;
  if (key && row && !level && visibleInOtherMode(caller, key, row.share_level))
    throw notFoundInOtherMode('api_key', keyId, caller.livemode);
  if (!key || !level) throw notFound('api_key', keyId);
  requireAccess(level, action);
  return { key, accessLevel: level };
}

export const revokedError = (keyId: string) =>
  new HallmarkError('resource_deleted', {
    message: 'The API key has been revoked; revoked keys cannot be changed or restored.',
    extras: { resource: 'api_key', resource_id: keyId },
  });

export async function insertAudit(
  q: Queryable,
  key: Pick<ApiKeyRecord, 'id' | 'enterpriseId'>,
  entry: { action: AuditAction; at: Date; userId?: string | null; ipAddress?: string | null },
): Promise<void> {
  await q.query(
    `INSERT INTO audit_logs (key_id, enterprise_id, action, user_id, ip_address, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      key.id,
      key.enterpriseId,
      entry.action,
      entry.userId ?? null,
      entry.ipAddress && isIP(entry.ipAddress) ? entry.ipAddress : null,
      entry.at,
    ],
  );
}

export async function ensureEnterprise(q: Queryable, enterpriseId: string, now: Date): Promise<void> {
  await q.query('INSERT INTO enterprises (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
    enterpriseId,
    now,
  ]);
}

/** Inserts a new key and its first secret. */
export async function insertKey(
  tx: Queryable,
  key: ApiKeyRecord,
  secretHash: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO api_keys (id, enterprise_id, name, type, livemode, permissions, rate_limit_per_minute,
       requests_per_hour, burst_limit, allowed_ips, key_prefix, expires_at, created_at, created_by, updated_at,
       acts_for, creator_role)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $13, $15, $16)`,
    [
      key.id,
      key.enterpriseId,
      key.name,
      key.type,
      key.livemode,
      key.permissions,
      key.limits.perMinute,
      key.limits.perHour,
      key.limits.burst,
      key.allowedIps,
      key.keyPrefix,
      key.expiresAt,
      now,
      key.createdBy,
      key.actsFor,
      key.creatorRole,
    ],
  );
  await tx.query('INSERT INTO api_key_secrets (secret_hash, key_id, created_at) VALUES ($1, $2, $3)', [
    secretHash,
    key.id,
    now,
  ]);
}

/** The key a secret hash belongs to, with that secret's grace end (the verify hot path: one indexed read). */
export async function keyBySecretHash(
  db: Queryable,
  secretHash: string,
): Promise<(KeyRow & { grace_until: Date | null }) | null> {
  const { rows } = await db.query<KeyRow & { grace_until: Date | null }>(
    `SELECT ${KEY_COLUMNS}, s.grace_until FROM api_key_secrets s JOIN api_keys k ON k.id = s.key_id
      WHERE s.secret_hash = $1`,
    [secretHash],
  );
  return rows[0] ?? null;
}

/** Every key of the enterprise the caller's mode may see, newest first, with the caller's share level. */
export async function keysOfEnterprise(
  db: Queryable,
  caller: Pick<Caller, 'enterpriseId' | 'actsFor' | 'livemode'>,
): Promise<(KeyRow & { share_level: AccessLevel | null })[]> {
  const { rows } = await db.query<KeyRow & { share_level: AccessLevel | null }>(
    `SELECT ${KEY_COLUMNS}, s.level AS share_level
       FROM api_keys k LEFT JOIN key_shares s ON s.key_id = k.id AND s.user_id = $2
      WHERE k.enterprise_id = $1 AND (k.livemode = false OR $3)
      ORDER BY k.created_at DESC, k.id DESC`,
    [caller.enterpriseId, caller.actsFor, caller.livemode],
  );
  return rows;
}

export async function updateKeyRow(tx: Queryable, key: ApiKeyRecord, now: Date): Promise<void> {
  await tx.query(
    `UPDATE api_keys SET name = $2, permissions = $3, rate_limit_per_minute = $4, requests_per_hour = $5,
       burst_limit = $6, allowed_ips = $7, updated_at = $8 WHERE id = $1`,
    [
      key.id,
      key.name,
      key.permissions,
      key.limits.perMinute,
      key.limits.perHour,
      key.limits.burst,
      key.allowedIps,
      now,
    ],
  );
}

export async function markRevoked(tx: Queryable, keyId: string, now: Date): Promise<void> {
  await tx.query('UPDATE api_keys SET revoked_at = $2, updated_at = $2 WHERE id = $1', [keyId, now]);
}

/**
 * A new current secret: earlier secrets get (at most) `until` as their grace end, those whose
 * grace has ended go, and the key shows the new secret's prefix.
 */
export async function rotateSecret(
  tx: Queryable,
  keyId: string,
  next: { secretHash: string; keyPrefix: string },
  until: Date,
  now: Date,
): Promise<void> {
  await tx.query(
    'UPDATE api_key_secrets SET grace_until = LEAST(COALESCE(grace_until, $2), $2) WHERE key_id = $1',
    [keyId, until],
  );
  await tx.query('DELETE FROM api_key_secrets WHERE key_id = $1 AND grace_until <= $2', [keyId, now]);
  await tx.query('INSERT INTO api_key_secrets (secret_hash, key_id, created_at) VALUES ($1, $2, $3)', [
    next.secretHash,
    keyId,
    now,
  ]);
  await tx.query('UPDATE api_keys SET key_prefix = $2, updated_at = $3 WHERE id = $1', [
    keyId,
    next.keyPrefix,
    now,
  ]);
}
