// The keys service's store: every read and write of its database. Each state change
// commits together with its audit entry and its outbox event. Time comes from the
// injected clock, never from the database, so tests can move it.
import {
  HallmarkError,
  invalidParam,
  missingParam,
  newId,
  recordEvent,
  transaction,
  type Pool,
  type PoolClient,
} from '@hallmark/kit';
import { accessLevelOn, shareLevelFor, type PrincipalInput } from './domain/access.js';
import { auditLimit, type AuditEntry } from './domain/audit.js';
import {
  keyStatus,
  validateCreate,
  validateUpdate,
  type ApiKeyRecord,
  type CreateKeyInput,
  type UpdateKeyInput,
} from './domain/keys.js';
import { graceSeconds, graceUntil } from './domain/rotation.js';
import { displayPrefix, generateSecret, hashSecret } from './domain/secret.js';
import { validateSessionClaims, type SessionClaimsInput } from './domain/session.js';
import {
  cleanUsageRecords,
  parseUsagePeriod,
  summariseUsage,
  type UsageRecordInput,
  type UsageSummary,
} from './domain/usage.js';
import {
  ensureEnterprise,
  insertAudit,
  KEY_COLUMNS,
  keyFor,
  revokedError,
  toKeyRecord,
  type KeyRow,
  type KeyView,
} from './store/rows.js';
import {
  actorNames,
  loadCaller,
  provisionUsers,
  resolveSession,
  type SessionUser,
} from './store/sessions.js';
import { listShares, upsertShares, type ShareRecord } from './store/shares.js';
import { auditEntries, recordUsageBatch, usageSince } from './store/usage.js';

export type { KeyView } from './store/rows.js';
export type { ShareRecord } from './store/shares.js';

export interface KeysStoreOptions {
  now?: () => Date;
}

/** What a successful verification tells the gateway. */
export interface VerifiedKey {
  key: ApiKeyRecord;
  /** Set when the presented secret is an old one inside its rotation grace period. */
  graceUntil: Date | null;
}

export interface IssuedSecret {
  view: KeyView;
  secret: string;
  graceUntil: Date | null;
}

const SECRET_HASH = /^[0-9a-f]{64}$/;
const MAX_SHARE_TARGETS = 100;

export class KeysStore {
  /** The store's clock; handlers use it too, so a key's status and its checks agree. */
  readonly now: () => Date;

  constructor(
    private readonly pool: Pool,
    opts: KeysStoreOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  resolveSession(input: SessionClaimsInput): Promise<SessionUser> {
    return resolveSession(this.pool, validateSessionClaims(input), this.now());
  }

  /** The hot path: one indexed read. Unknown, revoked or past-grace → invalid; expired → expired. */
  async verifyKey(secretHash: string): Promise<VerifiedKey> {
    if (!SECRET_HASH.test(secretHash)) throw new HallmarkError('invalid_api_key');
    const { rows } = await this.pool.query<KeyRow & { grace_until: Date | null }>(
      `SELECT ${KEY_COLUMNS}, s.grace_until FROM api_key_secrets s JOIN api_keys k ON k.id = s.key_id
        WHERE s.secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    const now = this.now();
    if (!row || row.revoked_at || (row.grace_until && row.grace_until.getTime() <= now.getTime()))
      throw new HallmarkError('invalid_api_key');
    const key = toKeyRecord(row);
    if (keyStatus(key, now) === 'expired') throw new HallmarkError('expired_api_key');
    return { key, graceUntil: row.grace_until };
  }

  async createKey(
    principal: PrincipalInput | undefined,
    input: CreateKeyInput,
    ipAddress: string | null = null,
  ): Promise<IssuedSecret> {
    const caller = await loadCaller(this.pool, principal);
    const now = this.now();
    const spec = validateCreate(input, { now, callerLivemode: caller.livemode });
    const secret = generateSecret(spec.type, spec.livemode);
    const key: ApiKeyRecord = {
      ...spec,
      id: newId('apiKey'),
      enterpriseId: caller.enterpriseId,
      keyPrefix: displayPrefix(secret),
      createdAt: now,
      createdBy: caller.actorId,
      actsFor: caller.actsFor,
      creatorRole: caller.role,
      lastUsedAt: null,
      revokedAt: null,
    };
    await transaction(this.pool, async (tx) => {
      await ensureEnterprise(tx, key.enterpriseId, now);
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
        hashSecret(secret),
        key.id,
        now,
      ]);
      await insertAudit(tx, key, { action: 'key.created', at: now, userId: caller.actorId, ipAddress });
      await recordEvent(tx, 'keys', {
        type: 'key.created',
        data: { id: key.id, type: key.type, name: key.name },
        enterpriseId: key.enterpriseId,
        livemode: key.livemode,
      });
    });
    return { view: { key, accessLevel: 'owner' }, secret, graceUntil: null };
  }

  /** Every key the caller may see, newest first; no secrets, ever. */
  async listKeys(principal: PrincipalInput | undefined): Promise<KeyView[]> {
    const caller = await loadCaller(this.pool, principal);
    const { rows } = await this.pool.query<KeyRow & { share_level: KeyView['accessLevel'] | null }>(
      `SELECT ${KEY_COLUMNS}, s.level AS share_level
         FROM api_keys k LEFT JOIN key_shares s ON s.key_id = k.id AND s.user_id = $2
        WHERE k.enterprise_id = $1 AND (k.livemode = false OR $3)
        ORDER BY k.created_at DESC, k.id DESC`,
      [caller.enterpriseId, caller.actsFor, caller.livemode],
    );
    const views: KeyView[] = [];
    for (const row of rows) {
      const key = toKeyRecord(row);
      const level = accessLevelOn(caller, key, row.share_level);
      if (level) views.push({ key, accessLevel: level });
    }
    return views;
  }

  async getKey(principal: PrincipalInput | undefined, keyId: string): Promise<KeyView> {
    const caller = await loadCaller(this.pool, principal);
    return keyFor(this.pool, caller, keyId, 'view');
  }

  async updateKey(
    principal: PrincipalInput | undefined,
    keyId: string,
    input: UpdateKeyInput,
    ipAddress: string,
  ): Promise<KeyView> {
    return this.change(principal, keyId, 'update', async (tx, view, actorId, now) => {
      const changes = validateUpdate(view.key, input);
      if (Object.keys(changes).length === 0) return view;
      const key = { ...view.key, ...changes };
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
      await insertAudit(tx, key, { action: 'key.updated', at: now, userId: actorId, ipAddress });
      await recordEvent(tx, 'keys', {
        type: 'key.updated',
        data: { id: key.id },
        enterpriseId: key.enterpriseId,
        livemode: key.livemode,
      });
      return { key, accessLevel: view.accessLevel };
    });
  }

  /** Idempotent: revoking a revoked key returns it unchanged and emits nothing. */
  async revokeKey(principal: PrincipalInput | undefined, keyId: string, ipAddress: string): Promise<KeyView> {
    return this.change(
      principal,
      keyId,
      'revoke',
      async (tx, view, actorId, now) => {
        const key = { ...view.key, revokedAt: now };
        await tx.query('UPDATE api_keys SET revoked_at = $2, updated_at = $2 WHERE id = $1', [key.id, now]);
        await insertAudit(tx, key, { action: 'key.revoked', at: now, userId: actorId, ipAddress });
        await recordEvent(tx, 'keys', {
          type: 'key.revoked',
          data: { id: key.id },
          enterpriseId: key.enterpriseId,
          livemode: key.livemode,
        });
        return { key, accessLevel: view.accessLevel };
      },
      { revokedIsDone: true },
    );
  }

  /** A new current secret; earlier secrets verify until the grace period ends. */
  async rotateKey(
    principal: PrincipalInput | undefined,
    keyId: string,
    grace: number | undefined,
    ipAddress: string,
  ): Promise<IssuedSecret> {
    const seconds = graceSeconds(grace);
    let issued: IssuedSecret | undefined;
    await this.change(principal, keyId, 'rotate', async (tx, view, actorId, now) => {
      const until = graceUntil(now, seconds);
      const secret = generateSecret(view.key.type, view.key.livemode);
      await tx.query(
        'UPDATE api_key_secrets SET grace_until = LEAST(COALESCE(grace_until, $2), $2) WHERE key_id = $1',
        [keyId, until],
      );
      await tx.query('DELETE FROM api_key_secrets WHERE key_id = $1 AND grace_until <= $2', [keyId, now]);
      await tx.query('INSERT INTO api_key_secrets (secret_hash, key_id, created_at) VALUES ($1, $2, $3)', [
        hashSecret(secret),
        keyId,
        now,
      ]);
      const key = { ...view.key, keyPrefix: displayPrefix(secret) };
      await tx.query('UPDATE api_keys SET key_prefix = $2, updated_at = $3 WHERE id = $1', [
        keyId,
        key.keyPrefix,
        now,
      ]);
      await insertAudit(tx, key, { action: 'key.rotated', at: now, userId: actorId, ipAddress });
      await recordEvent(tx, 'keys', {
        type: 'key.rotated',
        data: { id: keyId, grace_until: until.toISOString() },
        enterpriseId: key.enterpriseId,
        livemode: key.livemode,
      });
      issued = { view: { key, accessLevel: view.accessLevel }, secret, graceUntil: until };
      return issued.view;
    });
    return issued!;
  }

  async shareKey(
    principal: PrincipalInput | undefined,
    keyId: string,
    userRefs: readonly string[],
    permissions: readonly string[],
    ipAddress: string,
  ): Promise<ShareRecord[]> {
    if (userRefs.length === 0) throw missingParam('userIds');
    if (userRefs.length > MAX_SHARE_TARGETS)
      throw invalidParam('userIds', `At most ${MAX_SHARE_TARGETS} userIds are allowed.`);
    const grant = shareLevelFor(permissions);
    let shares: ShareRecord[] = [];
    await this.change(principal, keyId, 'share', async (tx, view, actorId, now) => {
      const userIds = await provisionUsers(tx, view.key.enterpriseId, userRefs, now);
      await upsertShares(tx, keyId, userIds, grant, now);
      await insertAudit(tx, view.key, { action: 'key.shared', at: now, userId: actorId, ipAddress });
      await recordEvent(tx, 'keys', {
        type: 'key.shared',
        data: { id: keyId, user_ids: userIds },
        enterpriseId: view.key.enterpriseId,
        livemode: view.key.livemode,
      });
      shares = await listShares(tx, keyId);
      return view;
    });
    return shares;
  }

  /**
   * Which of `refs` are users (by session `sub` or row id) or API keys of the principal's
   * enterprise, each with its row id and the id the API shows (a user's `sub`).
   */
  async checkActors(
    principal: PrincipalInput | undefined,
    refs: readonly string[],
  ): Promise<{ ref: string; id: string; display: string }[]> {
    if (!principal?.enterpriseId) throw new HallmarkError('missing_api_key');
    if (refs.length > MAX_SHARE_TARGETS)
      throw invalidParam('userIds', `At most ${MAX_SHARE_TARGETS} ids are allowed.`);
    return actorNames(this.pool, principal.enterpriseId, refs);
  }

  async getUsage(
    principal: PrincipalInput | undefined,
    keyId: string,
    period: string,
  ): Promise<UsageSummary & { keyId: string; period: string }> {
    const parsed = parseUsagePeriod(period);
    const caller = await loadCaller(this.pool, principal);
    await keyFor(this.pool, caller, keyId, 'view');
    const rows = await usageSince(this.pool, keyId, parsed.since(this.now()));
    return { keyId, period: parsed.period, ...summariseUsage(rows) };
  }

  async listAuditLogs(
    principal: PrincipalInput | undefined,
    keyId: string,
    limit: number,
  ): Promise<AuditEntry[]> {
    const pageSize = auditLimit(limit);
    const caller = await loadCaller(this.pool, principal);
    await keyFor(this.pool, caller, keyId, 'view');
    return auditEntries(this.pool, keyId, pageSize);
  }

  /** Idempotent by batch id; returns how many records were stored (the first time's count on a repeat). */
  async recordUsage(batchId: string, records: readonly UsageRecordInput[]): Promise<number> {
    if (!batchId) throw missingParam('batchId');
    if (batchId.length > 128) throw invalidParam('batchId', 'batchId must be at most 128 characters.');
    const now = this.now();
    return recordUsageBatch(this.pool, batchId, cleanUsageRecords(records, now), now);
  }

  /**
   * The shape of every key mutation: one transaction; the key locked; the caller's access
   * checked; revoked keys refused (or, for revoke, returned as they are).
   */
  private async change(
    principal: PrincipalInput | undefined,
    keyId: string,
    action: 'update' | 'revoke' | 'rotate' | 'share',
    apply: (tx: PoolClient, view: KeyView, actorId: string, now: Date) => Promise<KeyView>,
    opts: { revokedIsDone?: boolean } = {},
  ): Promise<KeyView> {
    return transaction(this.pool, async (tx) => {
      const caller = await loadCaller(tx, principal);
      const view = await keyFor(tx, caller, keyId, action, { lock: true });
      if (view.key.revokedAt) {
        if (opts.revokedIsDone) return view;
        throw revokedError(keyId);
      }
      return apply(tx, view, caller.actorId, this.now());
    });
  }
}
