// Metrics and traces on a whole stack: every process exporting spans by OTLP/HTTP to a local
// receiver and serving /metrics on its own port. One discount-voucher redemption is one trace
// from the gateway through the vouchers service and PostgreSQL, the outbox and NATS, to notify's
// consumer; the named series move during a small bulk job; a caller's X-Request-Id reaches the
// services and the Restate workflow's log.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId, randomBase62 } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { idempotencyKeyOf, orderBody, waitForJob } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../src/otlp.js';

let stack: TestStack;
let otlp: OtlpReceiver;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  stack = await startTestStack({
    anvil: true,
    restate: true,
    metrics: true,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      HALLMARK_BULK_FETCH_IMAGES: 'false',
      HALLMARK_BULK_BATCH_SIZE: '4',
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await otlp?.close();
}, 60_000);

const hex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

/** A live key with transactions.* of a fresh enterprise. */
async function liveKey(): Promise<string> {
  const session = await stack.token({ ent: newId('enterprise'), role: 'owner' });
  const res = await stack.call('POST', '/api/v1/api-keys', {
    auth: session,
    body: { name: 'observability e2e', type: 'production', permissions: ['transactions.*'] },
  });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

/** One process's metrics as `series{labels}` → value. */
async function scrape(name: keyof TestStack['metricsUrls']): Promise<Map<string, number>> {
  const res = await fetch(stack.metricsUrls[name]);
  expect(res.status).toBe(200);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** Sum of the series whose name is `name` and whose labels include every `k="v"` given. */
function sum(m: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [key, v] of m) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, val]) => key.includes(`${k}="${val}"`))) total += v;
  }
  return total;
}

/** The value of the series `name` whose labels include every `k="v"` given, if it is there. */
function valueOf(m: Map<string, number>, name: string, labels: Record<string, string>): number | undefined {
  for (const [key, v] of m)
    if (
      key.startsWith(`${name}{`) &&
      Object.entries(labels).every(([k, val]) => key.includes(`${k}="${val}"`))
    )
      return v;
  return undefined;
}

// First, before any request: what a fresh process exports.
describe('a fresh process', () => {
  it('lists every counter of a known label set at 0, so a first event is an increase', async () => {
    type Process = keyof TestStack['metricsUrls'];
    const outcomes = (process: Process, name: string, list: string[]) =>
      list.map((outcome): [Process, string, Record<string, string>] => [process, name, { outcome }]);
    const expected: [Process, string, Record<string, string>][] = [
      ...outcomes('notify', 'hallmark_webhook_delivery_attempts_total', ['succeeded', 'retry', 'failed']),
      ...outcomes('bulk', 'hallmark_bulk_items_processed_total', ['success', 'failed']),
      ...outcomes('certificates', 'hallmark_gift_outcomes_total', [
        'claimed',
        'released',
        'expired',
        'revoked',
      ]),
      ...outcomes('platform', 'hallmark_platform_fulfilment_attempts_total', [
        'fulfilled',
        'retry',
        'failed',
        'skipped',
      ]),
      ['notify', 'hallmark_retention_pruned_rows_total', { table: 'webhook_attempts' }],
      ['keys', 'hallmark_retention_pruned_rows_total', { table: 'audit_logs' }],
      ['bulk', 'hallmark_retention_pruned_rows_total', { table: 'job_items' }],
      ['vouchers', 'hallmark_retention_pruned_rows_total', { table: 'outbox' }],
      ['notify', 'hallmark_events_dead_lettered_total', {}],
      ['gateway', 'hallmark_process_restarts_total', {}],
      ['certificates', 'hallmark_process_restarts_total', {}],
    ];
    const scraped = new Map<string, Map<string, number>>();
    const missing: string[] = [];
    for (const [process, name, labels] of expected) {
      if (!scraped.has(process)) scraped.set(process, await scrape(process));
      const m = scraped.get(process)!;
      const v = m.get(`${name}{service="${process}"}`) ?? valueOf(m, name, labels);
      if (v !== 0) missing.push(`${process} ${name}${JSON.stringify(labels)}: ${v}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('traces', () => {
  it('one discount-voucher redemption is one trace across gateway, vouchers, PostgreSQL, NATS and notify', async () => {
    const key = await liveKey();
    const code = `OBS${randomBase62(10)}`;
    const made = await stack.call('POST', '/api/v1/vouchers', {
      auth: key,
      body: { code, type: 'fixed_amount', value: 100, currency: 'USD' },
    });
    expect(made.status).toBe(201);
    // The caller's own trace: every span of the redemption must join it.
    const traceId = hex(16);
    const res = await stack.call('POST', '/api/v1/vouchers/redeem', {
      auth: key,
      body: { code, order_id: `order_${randomBase62(8)}`, amount: 1000 },
      headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect(res.status).toBe(200);

    const spans = await eventually(
      () => {
        const mine = otlp.spans.filter((s) => s.traceId === traceId);
        const has = (service: string, name: RegExp) =>
          mine.some((s) => s.service === service && name.test(s.name));
        if (
          !has('hallmark-gateway', /^POST \/api\/v1\/vouchers\/redeem$/) ||
          !has('hallmark-vouchers', /VouchersService\/RedeemVoucher$/) ||
          !has('hallmark-vouchers', /^pg\.query/) ||
          !has('hallmark-vouchers', /^hallmark\.vouchers\..* publish$/) ||
          !has('hallmark-notify', /^hallmark\.vouchers\..* process$/)
        )
          throw new Error(`trace incomplete: ${mine.map((s) => `${s.service}:${s.name}`).join(', ')}`);
        // One tree: every span but the gateway's (the child of the caller's span) has its parent
        // in the trace (a parent ends after its children, so its export may lag a little).
        const ids = new Set(mine.map((s) => s.spanId));
        const orphans = mine.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId));
        if (orphans.length !== 1) throw new Error(`orphans: ${orphans.map((s) => s.name).join(', ')}`);
        return mine;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    // One tree: every span but the caller's root has its parent in the trace or is the
    // gateway's child of the caller's span.
    const ids = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId));
    expect(orphans.map((s) => `${s.service}:${s.name}`)).toEqual([
      'hallmark-gateway:POST /api/v1/vouchers/redeem',
    ]);
    const server = spans.find((s) => s.name === 'POST /api/v1/vouchers/redeem')!;
    expect(server.attributes['http.route']).toBe('/api/v1/vouchers/redeem');
    expect(server.attributes['http.response.status_code']).toBe(200);
  });
});

describe('metrics', () => {
  it('the named series move during a small bulk job, each process on its own port', async () => {
    const before = {
      gateway: await scrape('gateway'),
      bulk: await scrape('bulk'),
      certificates: await scrape('certificates'),
    };
    const auth = await stack.token({ ent: newId('enterprise') });
    const body = orderBody(12);
    const requestId = `e2e-bulk-${randomBase62(12)}`;
    const res = await stack.call('POST', '/api/bulk-mint', {
      auth,
      body,
      headers: { 'idempotency-key': idempotencyKeyOf(body), 'x-request-id': requestId },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    // The job backlog is watched while the job runs (queued and processing, 0 when none).
    const during = await scrape('bulk');
    expect([...during.keys()].filter((k) => k.startsWith('hallmark_bulk_jobs_backlog{')).length).toBe(2);
    expect((await waitForJob(stack, auth, res.body.jobId, 90_000)).status).toBe('completed');

    const after = {
      gateway: await scrape('gateway'),
      bulk: await scrape('bulk'),
      certificates: await scrape('certificates'),
      notify: await scrape('notify'),
    };
    const moved = (
      p: 'gateway' | 'bulk' | 'certificates',
      name: string,
      labels: Record<string, string> = {},
    ) => sum(after[p], name, labels) - sum(before[p], name, labels);
    // RED at the gateway per route template, and per gRPC method in the services.
    expect(
      moved('gateway', 'hallmark_http_server_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/bulk-mint',
        status_code: '201',
      }),
    ).toBe(1);
    expect(
      moved('certificates', 'hallmark_grpc_server_handling_seconds_count', {
        grpc_method: 'MintBatch',
        grpc_code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(3);
    // Bulk items/s (a counter's rate) and the backlog drained.
    expect(moved('bulk', 'hallmark_bulk_items_processed_total', { outcome: 'success' })).toBe(12);
    expect(sum(after.bulk, 'hallmark_bulk_items_backlog')).toBe(0);
    // The outbox relayed bulk's events, with lag and backlog observed.
    expect(moved('bulk', 'hallmark_outbox_published_total')).toBeGreaterThan(0);
    expect(after.bulk.has('hallmark_outbox_backlog{service="bulk"}')).toBe(true);
    expect(after.bulk.has('hallmark_outbox_lag_seconds{service="bulk"}')).toBe(true);
    // The pool, the relayer, NATS consumers and webhooks are watched.
    // Connections in use and idle add up to the pool (no separate total to double-count).
    expect(
      sum(after.bulk, 'hallmark_db_pool_connections', { state: 'in_use' }) +
        sum(after.bulk, 'hallmark_db_pool_connections', { state: 'idle' }),
    ).toBeGreaterThan(0);
    expect([...after.bulk.keys()].some((k) => k.includes('state="total"'))).toBe(false);
    expect(sum(after.certificates, 'hallmark_relayer_balance_wei')).toBeGreaterThan(0);
    expect(sum(after.certificates, 'hallmark_relayer_nonce_gap')).toBe(0);
    expect(sum(after.certificates, 'hallmark_relayer_pending_transactions')).toBe(0);
    expect(
      [...after.notify.keys()].some((k) => k.startsWith('hallmark_nats_consumer_pending_messages{')),
    ).toBe(true);
    expect([...after.notify.keys()].some((k) => k.startsWith('hallmark_webhook_deliveries_backlog{'))).toBe(
      true,
    );
    expect(sum(after.gateway, 'hallmark_process_cpu_seconds_total')).toBeGreaterThan(0);

    // The caller's request id reached the bulk-job workflow's log on Restate.
    const bulkLog = readFileSync(path.join(stack.env.HALLMARK_DATA_DIR!, 'logs', 'bulk.log'), 'utf8');
    expect(bulkLog).toContain(`BulkJob/run: request_id=${requestId}`);
  });

  it('the gateway serves no metrics on its public port', async () => {
    expect((await fetch(`${stack.gatewayUrl}/metrics`)).status).toBe(404);
  });
});
