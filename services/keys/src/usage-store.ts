// Usage records from gateways (batched, idempotent by batch id), hourly roll-ups,
// `key.used` audit entries, and the reads behind GetUsage and ListAuditLogs.
import { transaction, type Pool, type Queryable, type RetentionRule } from '@hallmark/kit';
import type { AuditAction, AuditEntry } from './domain/audit.js';
import { endpointLabel, rollUp, type HourlyRollup, type UsageRecord } from './domain/usage.js';

/**
 * Retention (kit retention.ts) of what grows with every request:
 *  - batch receipts, a week: a gateway retries an unacknowledged batch within minutes;
 *  - hourly roll-ups, 90 days: three times the longest usage period the API reads (30d);
 *  - audit logs (a `key.used` row per request), a year: the audit trail history PCI DSS
 *    (10.5.1) and SOC 2 auditors ask for, and what Stripe's and Unkey's plans top out near.
 */
export const USAGE_RETENTION: RetentionRule[] = [
  { table: 'usage_batches', key: 'batch_id', ageColumn: 'received_at', defaultDays: 7 },
  { table: 'key_usage_hourly', ageColumn: 'hour', defaultDays: 90 },
  { table: 'audit_logs', key: 'id', ageColumn: 'created_at', defaultDays: 365 },
];

/**
 * Applies one batch exactly once. The batch receipt, the audit entries, the roll-up
 * increments and `last_used_at` commit together, so a retried batch (the gateway did
 * not see our answer) is acknowledged with the original count and changes nothing.
 * Records of keys that do not exist are dropped.
 */
export async function recordUsageBatch(
  pool: Pool,
  batchId: string,
  records: readonly UsageRecord[],
  now: Date,
): Promise<number> {
  return transaction(pool, async (tx) => {
    const claimed = await tx.query(
      'INSERT INTO usage_batches (batch_id, accepted, received_at) VALUES ($1, 0, $2) ON CONFLICT (batch_id) DO NOTHING',
      [batchId, now],
    );
    if (claimed.rowCount === 0) {
      const { rows } = await tx.query<{ accepted: number }>(
        'SELECT accepted FROM usage_batches WHERE batch_id = $1',
        [batchId],
      );
      return rows[0]?.accepted ?? 0;
    }
    const keyIds = [...new Set(records.map((r) => r.keyId))].sort();
    // Locks the keys in id order: concurrent batches touching the same keys queue up
    // instead of deadlocking, and a key revoked meanwhile still gets its usage.
    const { rows: keys } = await tx.query<{ id: string; enterprise_id: string }>(
      'SELECT id, enterprise_id FROM api_keys WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE',
      [keyIds],
    );
    const enterpriseOf = new Map(keys.map((k) => [k.id, k.enterprise_id]));
    const kept = records.filter((r) => enterpriseOf.has(r.keyId));
    if (kept.length > 0) {
      await insertUsedEntries(tx, kept, enterpriseOf);
      await addRollups(tx, rollUp(kept));
      await touchLastUsed(tx, kept);
    }
    await tx.query('UPDATE usage_batches SET accepted = $2 WHERE batch_id = $1', [batchId, kept.length]);
    return kept.length;
  });
}

async function insertUsedEntries(
  tx: Queryable,
  records: readonly UsageRecord[],
  enterpriseOf: Map<string, string>,
) {
  await tx.query(
    `INSERT INTO audit_logs (key_id, enterprise_id, action, ip_address, endpoint, status_code, created_at)
     SELECT key_id, enterprise_id, 'key.used', ip, endpoint, status, at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[])
         AS r(key_id, enterprise_id, ip, endpoint, status, at)`,
    [
      records.map((r) => r.keyId),
      records.map((r) => enterpriseOf.get(r.keyId)!),
      records.map((r) => r.ipAddress),
      records.map((r) => endpointLabel(r.method, r.path)),
      records.map((r) => r.statusCode),
      records.map((r) => r.at),
    ],
  );
}

async function addRollups(tx: Queryable, rows: readonly HourlyRollup[]) {
  await tx.query(
    `INSERT INTO key_usage_hourly AS h (key_id, hour, method, path, requests, successes, failures, latency_ms_sum)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::float8[])
     ON CONFLICT (key_id, hour, method, path) DO UPDATE SET
       requests = h.requests + EXCLUDED.requests,
       successes = h.successes + EXCLUDED.successes,
       failures = h.failures + EXCLUDED.failures,
       latency_ms_sum = h.latency_ms_sum + EXCLUDED.latency_ms_sum`,
    [
      rows.map((r) => r.keyId),
      rows.map((r) => r.hour),
      rows.map((r) => r.method),
      rows.map((r) => r.path),
      rows.map((r) => r.requests),
      rows.map((r) => r.successes),
      rows.map((r) => r.failures),
      rows.map((r) => r.latencySum),
    ],
  );
}

async function touchLastUsed(tx: Queryable, records: readonly UsageRecord[]) {
  const latest = new Map<string, Date>();
  for (const r of records)
    if ((latest.get(r.keyId)?.getTime() ?? -Infinity) < r.at.getTime()) latest.set(r.keyId, r.at);
  await tx.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, v.at)
       FROM unnest($1::text[], $2::timestamptz[]) AS v(id, at) WHERE k.id = v.id`,
    [[...latest.keys()], [...latest.values()]],
  );
}

export async function usageSince(q: Queryable, keyId: string, since: Date) {
  const { rows } = await q.query<{
    method: string;
    path: string;
    requests: number;
    successes: number;
    failures: number;
    latency_sum: number;
  }>(
    `SELECT method, path, sum(requests)::bigint AS requests, sum(successes)::bigint AS successes,
            sum(failures)::bigint AS failures, sum(latency_ms_sum) AS latency_sum
       FROM key_usage_hourly WHERE key_id = $1 AND hour >= $2 GROUP BY method, path`,
    [keyId, since],
  );
  return rows.map((r) => ({
    method: r.method,
    path: r.path,
    requests: r.requests,
    successes: r.successes,
    failures: r.failures,
    latencySum: r.latency_sum,
  }));
}

export async function auditEntries(q: Queryable, keyId: string, limit: number): Promise<AuditEntry[]> {
  const { rows } = await q.query<{
    created_at: Date;
    action: AuditAction;
    user_id: string | null;
    ip_address: string | null;
    endpoint: string | null;
    status_code: number | null;
  }>(
    // A user is named by their session subject (`sub`); an API key by its id.
    `SELECT a.created_at, a.action, coalesce(u.subject, a.user_id) AS user_id, a.ip_address, a.endpoint,
            a.status_code
       FROM audit_logs a LEFT JOIN users u ON u.id = a.user_id AND u.enterprise_id = a.enterprise_id
      WHERE a.key_id = $1 ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
    [keyId, limit],
  );
  return rows.map((r) => ({
    at: r.created_at,
    action: r.action,
    userId: r.user_id,
    ipAddress: r.ip_address,
    endpoint: r.endpoint,
    statusCode: r.status_code,
  }));
}
