// Usage: periods, cleaning of gateway records, hourly roll-ups and the summary.
//
// Gateways send batches of per-request records (RecordUsage). Each record becomes one
// `key.used` audit entry (the audit log is the per-request trail the spec describes) and
// is folded into an hourly roll-up per (key, hour, method, path), so GetUsage reads at
// most 24 × 30 rows per endpoint however busy the key is. Usage is therefore counted at
// hour granularity: "24h" means the last 24 whole-or-partial hours.
import { invalidParam } from '@hallmark/kit/errors';
import { isIP } from 'node:net';
import { parseIsoInstant } from './time.js';

const HOUR_MS = 3_600_000;
export const USAGE_PERIODS = {
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
} as const;
export type UsagePeriod = keyof typeof USAGE_PERIODS;
export const DEFAULT_USAGE_PERIOD: UsagePeriod = '7d';
export const MAX_USAGE_BATCH = 1000;
/** Records stamped further ahead than this (gateway clock skew) are stamped now. */
const MAX_FUTURE_SKEW_MS = 5 * 60_000;

export function parseUsagePeriod(value: string): { period: UsagePeriod; since: (now: Date) => Date } {
  const period = value === '' ? DEFAULT_USAGE_PERIOD : value;
  if (!Object.hasOwn(USAGE_PERIODS, period)) throw invalidParam('period', 'period must be 24h, 7d or 30d.');
  const ms = USAGE_PERIODS[period as UsagePeriod];
  return {
    period: period as UsagePeriod,
    since: (now) => new Date(hourOf(new Date(now.getTime() - ms)).getTime()),
  };
}

export const hourOf = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

export interface UsageRecordInput {
  keyId: string;
  method: string;
  path: string;
  statusCode: number;
  latencyMs: number;
  ipAddress: string;
  at: string;
}

export interface UsageRecord {
  keyId: string;
  method: string;
  path: string;
  statusCode: number;
  latencyMs: number;
  ipAddress: string | null;
  at: Date;
}

/**
 * Keeps the records that make sense and normalises them. A malformed record is dropped,
 * not fatal: failing the whole batch would make the gateway retry it forever.
 */
export function cleanUsageRecords(records: readonly UsageRecordInput[], now: Date): UsageRecord[] {
  if (records.length > MAX_USAGE_BATCH)
    throw invalidParam('records', `A batch holds at most ${MAX_USAGE_BATCH} records.`);
  const out: UsageRecord[] = [];
  for (const r of records) {
    const method = r.method.toUpperCase();
    if (!/^[A-Z]{1,16}$/.test(method)) continue;
    const path = r.path.split('?')[0] ?? '';
    if (!path.startsWith('/') || path.length > 200) continue;
    if (!Number.isInteger(r.statusCode) || r.statusCode < 100 || r.statusCode > 599) continue;
    if (!r.keyId.startsWith('apikey_') || r.keyId.length > 64) continue;
    const latencyMs = Number.isFinite(r.latencyMs) && r.latencyMs >= 0 ? r.latencyMs : 0;
    const parsed = r.at ? parseIsoInstant(r.at) : null;
    const at = parsed && parsed.getTime() <= now.getTime() + MAX_FUTURE_SKEW_MS ? parsed : now;
    out.push({
      keyId: r.keyId,
      method,
      path,
      statusCode: r.statusCode,
      latencyMs,
      ipAddress: isIP(r.ipAddress) ? r.ipAddress : null,
      at,
    });
  }
  return out;
}

export const isSuccess = (statusCode: number): boolean => statusCode < 400;

/** The audit log's `endpoint`: method and route pattern. */
export const endpointLabel = (method: string, path: string): string => `${method} ${path}`;

export interface HourlyRollup {
  keyId: string;
  hour: Date;
  method: string;
  path: string;
  requests: number;
  successes: number;
  failures: number;
  latencySum: number;
}

/** Folds records into roll-up increments, sorted so concurrent upserts lock rows in one order. */
export function rollUp(records: readonly UsageRecord[]): HourlyRollup[] {
  const byKey = new Map<string, HourlyRollup>();
  for (const r of records) {
    const hour = hourOf(r.at);
    const id = `${r.keyId}\u0000${hour.getTime()}\u0000${r.method}\u0000${r.path}`;
    let row = byKey.get(id);
    if (!row)
      byKey.set(
        id,
        (row = {
          keyId: r.keyId,
          hour,
          method: r.method,
          path: r.path,
          requests: 0,
          successes: 0,
          failures: 0,
          latencySum: 0,
        }),
      );
    row.requests++;
    if (isSuccess(r.statusCode)) row.successes++;
    else row.failures++;
    row.latencySum += r.latencyMs;
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

export interface UsageSummary {
  totalRequests: number;
  successfulRequests: number;
  failedRequests: number;
  averageLatency: number;
  endpoints: { path: string; method: string; requests: number; avgLatency: number }[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Totals and per-endpoint figures from roll-up rows of one key; busiest endpoint first. */
export function summariseUsage(rows: readonly Omit<HourlyRollup, 'keyId' | 'hour'>[]): UsageSummary {
  const endpoints = new Map<string, { path: string; method: string; requests: number; latencySum: number }>();
  let total = 0;
  let ok = 0;
  let failed = 0;
  let latency = 0;
  for (const r of rows) {
    total += r.requests;
    ok += r.successes;
    failed += r.failures;
    latency += r.latencySum;
    const id = endpointLabel(r.method, r.path);
    const e = endpoints.get(id) ?? { path: r.path, method: r.method, requests: 0, latencySum: 0 };
    e.requests += r.requests;
    e.latencySum += r.latencySum;
    endpoints.set(id, e);
  }
  return {
    totalRequests: total,
    successfulRequests: ok,
    failedRequests: failed,
    averageLatency: total ? round2(latency / total) : 0,
    endpoints: [...endpoints.values()]
      .sort(
        (a, b) => b.requests - a.requests || a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
      )
      .map((e) => ({
        path: e.path,
        method: e.method,
        requests: e.requests,
        avgLatency: round2(e.latencySum / e.requests),
      })),
  };
}
