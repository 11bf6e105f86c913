// API keys: types, derived status, and validation of create and update input.
// Pure: the caller passes `now`; every refusal is a typed HallmarkError naming its param.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import type { Role } from './access.js';
import { normaliseIpEntry, MAX_ALLOWED_IPS } from './ips.js';
import {
  limitsForEnterprise,
  limitsForRate,
  MAX_BURST_LIMIT,
  MAX_RATE_LIMIT_PER_MINUTE,
  MAX_REQUESTS_PER_HOUR,
  type KeyLimits,
} from './limits.js';
import { isUnversionedScope, isVersionedScope } from './scopes.js';
import { parseIsoInstant } from './time.js';

/** `enterprise` is the `/api/enterprise/api-keys` form: unversioned scopes, `pk_live_` (`pk_test_` in test mode). */
export const KEY_TYPES = ['production', 'test', 'restricted', 'enterprise'] as const;
export type KeyType = (typeof KEY_TYPES)[number];
export type KeyStatus = 'active' | 'revoked' | 'expired';

export const NAME_MAX_LENGTH = 100;
export const MAX_PERMISSIONS = 50;

export interface ApiKeyRecord {
  id: string;
  enterpriseId: string;
  name: string;
  type: KeyType;
  livemode: boolean;
  permissions: string[];
  limits: KeyLimits;
  allowedIps: string[];
  keyPrefix: string;
  expiresAt: Date | null;
  createdAt: Date;
  createdBy: string;
  /** The user this key acts for, and the role it carries (never above its maker's). */
  actsFor: string;
  creatorRole: Role;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const isKeyType = (t: string): t is KeyType => (KEY_TYPES as readonly string[]).includes(t);

/** Revoked wins over expired: a revoked key never becomes anything else. */
export function keyStatus(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** Test keys see and touch only test-mode data; enterprise keys take their maker's mode; every other type is live. */
export const livemodeOf = (type: KeyType): boolean => type !== 'test';

export function validateName(name: string | null | undefined): string {
  if (name === null || name === undefined || name === '') throw missingParam('name');
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > NAME_MAX_LENGTH)
    throw invalidParam('name', `name must be 1 to ${NAME_MAX_LENGTH} characters.`);
  return trimmed;
}

/** The request field the permissions arrived in: `scopes` on the enterprise form. */
export const permissionsParam = (type: KeyType) => (type === 'enterprise' ? 'scopes' : 'permissions');

export function validatePermissions(type: KeyType, permissions: readonly string[]): string[] {
  const param = permissionsParam(type);
  if (permissions.length === 0) throw missingParam(param);
  if (permissions.length > MAX_PERMISSIONS)
    throw invalidParam(param, `At most ${MAX_PERMISSIONS} ${param} are allowed.`);
  const allowed = type === 'enterprise' ? isUnversionedScope : isVersionedScope;
  for (const p of permissions) {
    if (!allowed(p))
      throw invalidParam(param, `Unknown scope for a ${type} key: '${String(p).slice(0, 40)}'.`);
  }
  return [...new Set(permissions)].sort();
}

export function validateRateLimit(value: number, param = 'rateLimit'): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_RATE_LIMIT_PER_MINUTE)
    throw invalidParam(param, `${param} must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}.`);
  return value;
}

export function validateAllowedIps(entries: readonly string[]): string[] {
  if (entries.length > MAX_ALLOWED_IPS)
    throw invalidParam('allowedIps', `At most ${MAX_ALLOWED_IPS} entries are allowed.`);
  const out: string[] = [];
  for (const entry of entries) {
    const normalised = normaliseIpEntry(entry);
    if (!normalised)
      throw invalidParam('allowedIps', `Not an IP address or CIDR range: '${String(entry).slice(0, 64)}'.`);
    if (!out.includes(normalised)) out.push(normalised);
  }
  return out;
}

export function validateExpiresAt(value: string, now: Date): Date {
  const at = parseIsoInstant(value);
  if (!at) throw invalidParam('expiresAt', 'expiresAt must be an ISO 8601 date-time.');
  if (at.getTime() <= now.getTime()) throw invalidParam('expiresAt', 'expiresAt must be in the future.');
  return at;
}

function validateEnterpriseLimits(perHour: number | null, burst: number | null): KeyLimits {
  if (perHour !== null && (!Number.isInteger(perHour) || perHour < 1 || perHour > MAX_REQUESTS_PER_HOUR))
    throw invalidParam(
      'rateLimit.requestsPerHour',
      `requestsPerHour must be an integer from 1 to ${MAX_REQUESTS_PER_HOUR}.`,
    );
  if (burst !== null && (!Number.isInteger(burst) || burst < 1 || burst > MAX_BURST_LIMIT))
    throw invalidParam('rateLimit.burstLimit', `burstLimit must be an integer from 1 to ${MAX_BURST_LIMIT}.`);
  const limits = limitsForEnterprise(perHour, burst);
  if (limits.burst > limits.perHour)
    throw invalidParam('rateLimit.burstLimit', 'burstLimit cannot exceed requestsPerHour.');
  return limits;
}

/** Create input with the proto's "unset" values already turned into null. */
export interface CreateKeyInput {
  name: string;
  type: string;
  permissions: string[];
  rateLimit: number | null;
  expiresAt: string | null;
  allowedIps: string[];
  requestsPerHour: number | null;
  burstLimit: number | null;
}

export interface NewKeySpec {
  name: string;
  type: KeyType;
  livemode: boolean;
  permissions: string[];
  limits: KeyLimits;
  allowedIps: string[];
  expiresAt: Date | null;
}

export function validateCreate(
  input: CreateKeyInput,
  ctx: { now: Date; callerLivemode: boolean },
): NewKeySpec {
  const name = validateName(input.name);
  if (!input.type) throw missingParam('type');
  if (!isKeyType(input.type)) throw invalidParam('type', 'type must be production, test or restricted.');
  const type = input.type;
  // In test mode a caller makes test keys: the `test` type, or the enterprise form, which
  // then lives in test mode (`pk_test_`) like the caller.
  if (!ctx.callerLivemode && type !== 'test' && type !== 'enterprise')
    throw new HallmarkError('insufficient_permissions', {
      message: 'A test-mode key can create only test keys.',
    });
  const permissions = validatePermissions(type, input.permissions);
  const expiresAt = input.expiresAt ? validateExpiresAt(input.expiresAt, ctx.now) : null;
  const allowedIps = validateAllowedIps(input.allowedIps);
  let limits: KeyLimits;
  if (type === 'enterprise') {
    if (input.rateLimit !== null)
      throw invalidParam('rateLimit', 'Enterprise keys take rateLimit as {requestsPerHour, burstLimit}.');
    limits = validateEnterpriseLimits(input.requestsPerHour, input.burstLimit);
  } else {
    if (input.requestsPerHour !== null || input.burstLimit !== null)
      throw invalidParam('rateLimit', 'requestsPerHour and burstLimit apply to enterprise keys only.');
    if (type === 'restricted') {
      // Restricted keys have custom limits (spec: Limits); their expiry is optional like every
      // key's ("optional expiry; null when none").
      if (input.rateLimit === null) throw missingParam('rateLimit');
    }
    limits = limitsForRate(type, input.rateLimit === null ? null : validateRateLimit(input.rateLimit));
  }
  const livemode = type === 'enterprise' ? ctx.callerLivemode : livemodeOf(type);
  return { name, type, livemode, permissions, limits, allowedIps, expiresAt };
}

/** PATCH input: absent fields are undefined. */
export interface UpdateKeyInput {
  name?: string;
  permissions?: string[];
  rateLimit?: number;
  allowedIps?: string[];
}

export type KeyChanges = Partial<Pick<ApiKeyRecord, 'name' | 'permissions' | 'limits' | 'allowedIps'>>;

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Validates a PATCH against the key; returns only the fields that actually change. */
export function validateUpdate(key: ApiKeyRecord, input: UpdateKeyInput): KeyChanges {
  const changes: KeyChanges = {};
  if (input.name !== undefined) {
    const name = validateName(input.name);
    if (name !== key.name) changes.name = name;
  }
  if (input.permissions !== undefined) {
    const permissions = validatePermissions(key.type, input.permissions);
    if (!sameList(permissions, key.permissions)) changes.permissions = permissions;
  }
  if (input.rateLimit !== undefined) {
    if (key.type === 'enterprise')
      throw invalidParam('rateLimit', 'Enterprise keys are limited by requestsPerHour and burstLimit.');
    const limits = limitsForRate(key.type, validateRateLimit(input.rateLimit));
    if (limits.perMinute !== key.limits.perMinute) changes.limits = limits;
  }
  if (input.allowedIps !== undefined) {
    const allowedIps = validateAllowedIps(input.allowedIps);
    if (!sameList(allowedIps, key.allowedIps)) changes.allowedIps = allowedIps;
  }
  return changes;
}
