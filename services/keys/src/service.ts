// The keys service's use cases: sessions, API keys (create, verify, list, update, revoke,
// rotate, share), usage and audit. Each state change runs in one transaction with its audit
// entry and its outbox event; domain/ decides, the *-store.ts files hold all SQL. Time comes
// from the injected clock, never from the database, so tests can move it.
import {
  HallmarkError,
  invalidParam,
  missingParam,
  newEvent,
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
import { isUserRef, mergeSession, validateSessionClaims, type SessionClaimsInput } from './domain/session.js';
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
  insertKey,
  keyBySecretHash,
  keyFor,
  keysOfEnterprise,
  markRevoked,
  revokedError,
  rotateSecret,
  toKeyRecord,
  updateKeyRow,
  type KeyView,
} from './key-store.js';
import {
  actorNames,
  insertUserIfNew,
  loadCaller,
  enterpriseUsers,
  updateUser,
  userBySubject,
  type SessionUser,
} from './session-store.js';
import { listShares, upsertShares, type ShareRecord } from './share-store.js';
import { auditEntries, recordUsageBatch, usageSince } from './usage-store.js';

export type { KeyView } from './key-store.js';
export type { ShareRecord } from './share-store.js';

export interface KeysServiceOptions {
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

export class KeysService {
  /** The service's clock; handlers use it too, so a key's status and its checks agree. */
  readonly now: () => Date;

  constructor(
    private readonly pool: Pool,
    opts: KeysServiceOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Idempotent under concurrency: the unique (enterprise_id, subject) index decides which
   * of several first requests creates the user; the others wait for it and see the row.
   * Exactly one `user.created` is recorded; `user.updated` only when email or role changed.
   */
  async resolveSession(input: SessionClaimsInput): Promise<SessionUser> {
    const claims = validateSessionClaims(input);
    const now = this.now();
    const session = (userId: string, role: SessionUser['role']) => ({
      userId,
      enterpriseId: claims.enterpriseId,
      role,
    });
    // Fast path without a write: a known user whose token says nothing new.
    const known = await userBySubject(this.pool, claims.enterpriseId, claims.subject);
    if (known && !mergeSession(known, claims).changed) return session(known.id, known.role);

    return transaction(this.pool, async (tx) => {
      await ensureEnterprise(tx, claims.enterpriseId, now);
      const owner = { enterpriseId: claims.enterpriseId, livemode: true };
      const id = await insertUserIfNew(tx, claims, now);
      if (id) {
        const data = { id, email: claims.email, role: claims.role, enterprise_id: claims.enterpriseId };
        await recordEvent(tx, 'keys', newEvent('user.created', data, owner));
        return session(id, claims.role);
      }
      const stored = (await userBySubject(tx, claims.enterpriseId, claims.subject, { lock: true }))!;
      const next = mergeSession(stored, claims);
      if (next.changed) {
        await updateUser(tx, stored.id, next, now);
        const data = {
          id: stored.id,
          email: next.email,
          role: next.role,
          enterprise_id: claims.enterpriseId,
        };
        await recordEvent(tx, 'keys', newEvent('user.updated', data, owner));
      }
      return session(stored.id, next.role);
    });
  }

  /** The hot path: one indexed read. Unknown, revoked or past-grace → invalid; expired → expired. */
  async verifyKey(secretHash: string): Promise<VerifiedKey> {
    if (!SECRET_HASH.test(secretHash)) throw new HallmarkError('invalid_api_key');
    const row = await keyBySecretHash(this.pool, secretHash);
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
      await insertKey(tx, key, hashSecret(secret), now);
      await insertAudit(tx, key, { action: 'key.created', at: now, userId: caller.actorId, ipAddress });
      await recordEvent(
        tx,
        'keys',
        newEvent('key.created', { id: key.id, type: key.type, name: key.name }, key),
      );
    });
    return { view: { key, accessLevel: 'owner' }, secret, graceUntil: null };
  }

  /** Every key the caller may see, newest first; no secrets, ever. */
  async listKeys(principal: PrincipalInput | undefined): Promise<KeyView[]> {
    const caller = await loadCaller(this.pool, principal);
    const views: KeyView[] = [];
    for (const row of await keysOfEnterprise(this.pool, caller)) {
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
      await updateKeyRow(tx, key, now);
      await insertAudit(tx, key, { action: 'key.updated', at: now, userId: actorId, ipAddress });
      await recordEvent(tx, 'keys', newEvent('key.updated', { id: key.id }, key));
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
        await markRevoked(tx, key.id, now);
        await insertAudit(tx, key, { action: 'key.revoked', at: now, userId: actorId, ipAddress });
        await recordEvent(tx, 'keys', newEvent('key.revoked', { id: key.id }, key));
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
      const key = { ...view.key, keyPrefix: displayPrefix(secret) };
      await rotateSecret(tx, keyId, { secretHash: hashSecret(secret), keyPrefix: key.keyPrefix }, until, now);
      await insertAudit(tx, key, { action: 'key.rotated', at: now, userId: actorId, ipAddress });
      await recordEvent(
        tx,
        'keys',
        newEvent('key.rotated', { id: keyId, grace_until: until.toISOString() }, key),
      );
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
    const malformed = userRefs.find((ref) => !isUserRef(ref));
    if (malformed !== undefined)
      throw invalidParam('userIds', `Not a user id (a session sub): '${malformed.slice(0, 64)}'.`);
    const grant = shareLevelFor(permissions);
    let shares: ShareRecord[] = [];
    await this.change(principal, keyId, 'share', async (tx, view, actorId, now) => {
      // Users of this enterprise only, else 404 before anything is written.
      const userIds = await enterpriseUsers(tx, view.key.enterpriseId, userRefs);
      await upsertShares(tx, keyId, userIds, grant, now);
      await insertAudit(tx, view.key, { action: 'key.shared', at: now, userId: actorId, ipAddress });
      await recordEvent(tx, 'keys', newEvent('key.shared', { id: keyId, user_ids: userIds }, view.key));
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
