// Audit log of a key (spec: Audit log entry). Which fields each action carries:
// key.created/updated/revoked/shared/rotated: userId (the acting user or API key id) and,
// when the gateway passed it, ipAddress. key.used: ipAddress, endpoint, statusCode.
import { invalidParam } from '@hallmark/kit/errors';

export const AUDIT_ACTIONS = [
  'key.created',
  'key.used',
  'key.updated',
  'key.revoked',
  'key.shared',
  'key.rotated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  at: Date;
  action: AuditAction;
  userId: string | null;
  ipAddress: string | null;
  endpoint: string | null;
  statusCode: number | null;
}

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 100;

/** Page size of ListAuditLogs: 0 means the default; above the maximum is refused. */
export function auditLimit(value: number): number {
  if (value === 0) return DEFAULT_AUDIT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_AUDIT_LIMIT)
    throw invalidParam('limit', `limit must be an integer from 1 to ${MAX_AUDIT_LIMIT}.`);
  return value;
}
