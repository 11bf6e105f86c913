// Voucher redemption, in one run on one database:
//  1. two baselines over `pg`, on voucher rows of the service's own database, at the same
//     concurrency: the bare conditional UPDATE a redemption is built around, and the fair one,
//     one transaction doing a redemption's durable work (the conditional UPDATE, the redemption
//     row and its three outbox rows, the service's own event payloads, in one statement as the
//     service writes them; into a copy of the outbox table the relay does not read, so the
//     baseline's events are not published and load nothing downstream);
//  2. redemptions/s and p99 through the real gateway (auth, scopes, rate limits, gRPC, the
//     service's statement with its redemption row and outbox events) on an unlimited voucher,
//     every request a distinct order. Goal: ≥ 0.6× the fair baseline. The three alternate for
//     BENCH_ROUNDS rounds and the median ratio is reported; CPU per redemption of every
//     process on the path is printed, to show where the time goes.
//  3. the race: 1,000 concurrent redeems of a voucher with max_uses 100 through the gateway;
//     prints the over-redemption count (must be 0).
//
// Rate limits stay on. The voucher_redeem group allows 200 redemptions per minute per key
// (and a production key 100 per second), so the load is spread over enough keys of one
// enterprise that no key comes near either limit: every request still goes through key
// verification and every rate-limit window, and a single 429 would show as non-2xx.
import type { TestStack } from '@hallmark/e2e';
import { newId } from '@hallmark/kit';
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  backendsOf,
  cpuMs,
  percentile,
  sized,
  table,
  unintendedNon2xx,
  verdict,
  type LoadResult,
} from './lib.js';
import { benchStack } from './stack.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? sized(32, 8));
const REQUESTS = Number(process.env.BENCH_VOUCHER_REQUESTS ?? sized(5_000, 200));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
/** Redemptions per key in the measured run: under the group's 200/min with room to spare. */
const PER_KEY = 150;
/** The race: this many concurrent redeems of a voucher with max_uses RACE_MAX. */
const RACE = sized(1_000, 100);
const RACE_MAX = sized(100, 10);

const BASELINE_SQL = `UPDATE vouchers SET times_used = times_used + 1
  WHERE id = $1 AND status = 'active' AND (max_uses IS NULL OR times_used < max_uses)
  RETURNING id, times_used`;

/**
 * The fair baseline's one transaction: the conditional UPDATE, the redemption row and the
 * outbox rows (bench_outbox: outbox's shape and indexes), guarded by the UPDATE, one round trip.
 */
const FAIR_SQL = `WITH v AS (
    UPDATE vouchers SET times_used = times_used + 1, version = version + 1, updated_at = now()
    WHERE id = $1 AND status = 'active' AND (max_uses IS NULL OR times_used < max_uses)
    RETURNING id, version, enterprise_id, livemode),
  r AS (
    INSERT INTO redemptions (voucher_id, order_id, transaction_id, customer_id, user_id, amount, currency,
      discount_applied, enterprise_id, livemode, voucher_version)
    SELECT v.id, $2, $3, NULL, $4, 1999, 'USD', 300, v.enterprise_id, v.livemode, v.version FROM v
    RETURNING 1),
  e AS (
    INSERT INTO bench_outbox (id, subject, type, payload)
    SELECT e->>'id', 'hallmark.' || (e->>'source') || '.' || (e->>'type'), e->>'type', e
    FROM v, jsonb_array_elements($5::jsonb) AS e
    RETURNING 1)
  SELECT (SELECT count(*) FROM r)::int AS redeemed, (SELECT count(*) FROM e)::int AS events,
    pg_notify('bench_outbox', '')
  FROM v`;

async function issueKeys(stack: TestStack, session: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  while (keys.length < n) {
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: session,
      body: { name: `bench ${keys.length}`, type: 'production', permissions: ['transactions.*'] },
    });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * (res.body?.error?.retry_after ?? 1)));
      continue;
    }
    if (res.status !== 201) throw new Error(`could not create a bench key: ${res.status} ${res.text}`);
    keys.push(res.body.key);
  }
  return keys;
}

async function createVoucher(stack: TestStack, key: string, body: Record<string, unknown>): Promise<any> {
  const res = await stack.call('POST', '/api/v1/vouchers', { auth: key, body });
  if (res.status !== 201) throw new Error(`could not create a voucher: ${res.status} ${res.text}`);
  return res.body;
}

/** `amount` redeems of `code` through the gateway, distinct orders, keys round-robin. */
async function redeemLoad(
  name: string,
  url: string,
  code: string,
  keys: string[],
  amount: number,
  orderPrefix: string,
): Promise<LoadResult & { statuses: Record<string, number> }> {
  let i = 0;
  const r = await autocannon({
    url: `${url}/api/v1/vouchers/redeem`,
    connections: CONNECTIONS,
    amount,
    requests: [
      {
        method: 'POST',
        setupRequest(req) {
          const n = i++;
          return {
            ...req,
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n % keys.length]}` },
            body: JSON.stringify({ code, order_id: `${orderPrefix}-${n}`, amount: 1999 }),
          };
        },
      },
    ],
  });
  const ok = r['2xx'];
  return {
    name,
    rps: ok / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
    statuses: r.statusCodeStats as unknown as Record<string, number>,
  };
}

/** Runs `one(client, n)` `total` times over CONNECTIONS connections; false answers count as failures. */
async function poolLoad(
  name: string,
  dbUrl: string,
  total: number,
  one: (client: pg.PoolClient, n: number) => Promise<boolean>,
): Promise<LoadResult & { ownBackendsCpuMs: number }> {
  const pool = new pg.Pool({ connectionString: dbUrl, max: CONNECTIONS });
  try {
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => pool.connect()));
    // This pool's backends end with it, before the caller reads the database's backends:
    // their CPU is read here, around the run.
    const pids = await Promise.all(
      clients.map(
        async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
      ),
    );
    const pgBefore = pids.map(cpuMs);
    const latencies: number[] = [];
    let next = 0;
    let failed = 0;
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        while (next < total) {
          const n = next++;
          const t = performance.now();
          const ok = await one(client, n);
          latencies.push(performance.now() - t);
          if (!ok) failed++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const ownBackendsCpuMs = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - pgBefore[i]!, 0);
    for (const c of clients) c.release();
    latencies.sort((a, b) => a - b);
    return {
      name,
      rps: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      non2xx: failed,
      ownBackendsCpuMs,
    };
  } finally {
    await pool.end();
  }
}

/** The bare conditional UPDATE, `total` times. */
function baselineLoad(dbUrl: string, voucherId: string, total: number): Promise<LoadResult> {
  return poolLoad('bare conditional UPDATE … RETURNING over pg (baseline)', dbUrl, total, async (client) => {
    const res = await client.query(BASELINE_SQL, [voucherId]);
    return res.rowCount === 1;
  });
}

/** Three outbox payloads of a real redemption (the service's own), as templates for the fair baseline. */
async function eventTemplates(dbUrl: string): Promise<Record<string, unknown>[]> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query('CREATE TABLE IF NOT EXISTS bench_outbox (LIKE outbox INCLUDING ALL)');
    const { rows } = await db.query<{ payload: Record<string, unknown> }>(
      `SELECT DISTINCT ON (type) payload FROM outbox
       WHERE type IN ('transaction.created', 'transaction.completed', 'voucher.redeemed') ORDER BY type, seq DESC`,
    );
    if (rows.length !== 3) throw new Error(`expected the three events of a redemption, found ${rows.length}`);
    return rows.map((r) => r.payload);
  } finally {
    await db.end();
  }
}

let fairRun = 0;

/** The fair baseline: one transaction doing a redemption's durable work, `total` times. */
function fairBaselineLoad(
  dbUrl: string,
  voucherId: string,
  total: number,
  templates: Record<string, unknown>[],
): Promise<LoadResult & { ownBackendsCpuMs: number }> {
  const run = ++fairRun;
  return poolLoad(
    'fair baseline: UPDATE + redemption row + outbox rows, one transaction',
    dbUrl,
    total,
    async (client, n) => {
      const order = `fair${run}-${n}`;
      const transactionId = newId('transaction');
      // Fresh envelopes as the service builds them: ids, the order, the transaction.
      const events = JSON.stringify(
        templates.map((t) => ({
          ...t,
          id: newId('event'),
          occurred_at: new Date().toISOString(),
          data: { ...(t.data as object), order_id: order, transaction_id: transactionId },
        })),
      );
      const res = await client.query<{ redeemed: number }>(FAIR_SQL, [
        voucherId,
        order,
        transactionId,
        'user_bench',
        events,
      ]);
      return res.rows[0]?.redeemed === 1;
    },
  );
}

/**
 * CPU used per redemption during `run` by each process of the stack (services, gateway,
 * NATS), the vouchers database's backends, and this process (the load generator).
 */
async function cpuPerRedemption<T extends object>(
  stack: TestStack,
  dbUrl: URL,
  redemptions: number,
  run: () => Promise<T>,
): Promise<[T, string]> {
  const database = dbUrl.pathname.slice(1);
  const natsPid = Number(readFileSync(path.join(stack.env.HALLMARK_DATA_DIR!, 'nats.pid'), 'utf8'));
  const procs = [
    ...[...stack.processes].map(([name, proc]) => ({ name, pid: proc.pid })),
    { name: 'nats', pid: natsPid },
  ];
  const before = procs.map((p) => cpuMs(p.pid));
  const pgBefore = new Map((await backendsOf(dbUrl.toString(), database)).map((pid) => [pid, cpuMs(pid)]));
  const self = process.cpuUsage();
  const result = await run();
  const selfUs = process.cpuUsage(self);
  // Backends opened during the run count from zero; any closed during it are missed.
  // (A baseline's own pool has closed by now: its backends' CPU comes with its result.)
  const pgMs =
    (await backendsOf(dbUrl.toString(), database)).reduce(
      (sum, pid) => sum + cpuMs(pid) - (pgBefore.get(pid) ?? 0),
      0,
    ) + ((result as { ownBackendsCpuMs?: number }).ownBackendsCpuMs ?? 0);
  // Every process of the stack: those off the request path (e.g. notify consuming the events) compete for the CPUs.
  const parts = procs
    .map((p, i) => [p.name, (cpuMs(p.pid) - before[i]!) / redemptions] as const)
    .filter(([, ms]) => ms >= 0.01);
  parts.push(
    ['postgres', pgMs / redemptions],
    ['load generator', (selfUs.user + selfUs.system) / 1000 / redemptions],
  );
  const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
  return [
    result,
    `CPU ms per redemption: ${parts.map(([n, ms]) => `${n} ${ms.toFixed(2)}`).join(', ')}; total ${total.toFixed(2)} ` +
      `→ CPU-bound ceiling on ${os.cpus().length} CPUs ≈ ${((os.cpus().length * 1000) / total).toFixed(0)}/s ` +
      `(load average ${os.loadavg()[0]!.toFixed(1)})`,
  ];
}

export async function benchVouchers(): Promise<void> {
  const stack = await benchStack();
  try {
    const session = await stack.token({ ent: newId('enterprise') });
    const warmRequests = Math.min(2_000, REQUESTS);
    const raceKeysN = RACE / 50; // 50 racing requests per key
    const perRoundKeysN = Math.ceil(REQUESTS / PER_KEY);
    const warmKeysN = Math.ceil(warmRequests / PER_KEY);
    const keys = await issueKeys(stack, session, 1 + warmKeysN + ROUNDS * perRoundKeysN + raceKeysN);
    const admin = keys.shift()!;
    const take = (n: number) => keys.splice(0, n);
    const warmKeys = take(warmKeysN);
    const roundKeys = Array.from({ length: ROUNDS }, () => take(perRoundKeysN));
    const raceKeys = take(raceKeysN);

    const hot = await createVoucher(stack, admin, { code: 'BENCHHOT', type: 'percentage', value: 15 });
    const bare = await createVoucher(stack, admin, { code: 'BENCHBARE', type: 'percentage', value: 15 });
    const fair = await createVoucher(stack, admin, { code: 'BENCHFAIR', type: 'percentage', value: 15 });
    const dbUrl = new URL(stack.postgres.url);
    dbUrl.pathname = `/${stack.prefix}_vouchers`;

    console.log(
      `
${ROUNDS} rounds of ${REQUESTS} redemptions each way, ${CONNECTIONS} concurrent; the gateway's load spread ` +
        `over ${perRoundKeysN} keys per round (≤ ${PER_KEY} per key: voucher_redeem allows 200/min per key); ` +
        `one unlimited voucher, distinct order ids; baseline on another voucher row of the same table`,
    );
    // Warm both paths (JIT, connection pools, key cache, PostgreSQL caches).
    await baselineLoad(dbUrl.toString(), bare.id, warmRequests);
    await redeemLoad('warm-up', stack.gatewayUrl, hot.code, warmKeys, warmRequests, 'warm');
    const templates = await eventTemplates(dbUrl.toString());
    await fairBaselineLoad(dbUrl.toString(), fair.id, warmRequests, templates);

    // Alternating rounds: on a shared machine either side's speed drifts within minutes.
    const results: LoadResult[] = [];
    const ratios: number[] = [];
    const fairRatios: number[] = [];
    const p99s: number[] = [];
    let cpu = '';
    let fairCpu = '';
    for (let round = 0; round < ROUNDS; round++) {
      const baseline = await baselineLoad(dbUrl.toString(), bare.id, REQUESTS);
      const [fairBase, roundFairCpu] = await cpuPerRedemption(stack, dbUrl, REQUESTS, () =>
        fairBaselineLoad(dbUrl.toString(), fair.id, REQUESTS, templates),
      );
      fairBase.name = `round ${round + 1}: fair baseline (one transaction, same durable work)`;
      fairCpu = roundFairCpu;
      const [gateway, roundCpu] = await cpuPerRedemption(stack, dbUrl, REQUESTS, () =>
        redeemLoad(
          `round ${round + 1}: redeem through the gateway`,
          stack.gatewayUrl,
          hot.code,
          roundKeys[round]!,
          REQUESTS,
          `bench${round}`,
        ),
      );
      baseline.name = `round ${round + 1}: bare conditional UPDATE over pg`;
      results.push(baseline, fairBase, gateway);
      if (gateway.non2xx > 0) console.log(`gateway non-2xx by status: ${JSON.stringify(gateway.statuses)}`);
      ratios.push(gateway.rps / baseline.rps);
      fairRatios.push(gateway.rps / fairBase.rps);
      p99s.push(gateway.p99);
      cpu = roundCpu;
    }
    table(results, results[0]!);
    unintendedNon2xx(results);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(ratios);
    const fairRatio = median(fairRatios);
    const gatewayNon2xx = results.filter((r) => r.name.includes('gateway')).reduce((n, r) => n + r.non2xx, 0);
    console.log(
      `
redemptions/s through the gateway ÷ bare UPDATE, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; ` +
        `median ${ratio.toFixed(2)}×`,
    );
    console.log(
      `redemptions/s through the gateway ÷ fair baseline (same durable work), per round: ` +
        `${fairRatios.map((r) => r.toFixed(2)).join(', ')}; median ${fairRatio.toFixed(2)}× ` +
        `(goal ≥ 0.6×: ${verdict(fairRatio >= 0.6)}); gateway non-2xx ${gatewayNon2xx}; ` +
        `gateway p99 median ${median(p99s).toFixed(0)} ms`,
    );
    console.log(`last round, gateway path: ${cpu}`);
    console.log(`last round, fair baseline: ${fairCpu}`);
    const after = await stack.call('GET', `/api/v1/vouchers/${hot.id}`, { auth: admin });
    const sent = warmRequests + ROUNDS * REQUESTS;
    console.log(
      `check: voucher times_used ${after.body.times_used} ${after.body.times_used === sent ? '=' : '≠'} ${sent} redemptions sent`,
    );

    // The race: RACE concurrent redeems (distinct orders) of a voucher with max_uses RACE_MAX.
    const racer = await createVoucher(stack, admin, {
      code: 'BENCHRACE',
      type: 'fixed_amount',
      value: 500,
      max_uses: RACE_MAX,
    });
    const t0 = performance.now();
    const replies = await Promise.all(
      Array.from({ length: RACE }, (_, i) =>
        stack.call('POST', '/api/v1/vouchers/redeem', {
          auth: raceKeys[i % raceKeys.length],
          body: { code: racer.code, order_id: `race-${i}`, amount: 1999 },
        }),
      ),
    );
    const raceMs = performance.now() - t0;
    const tally: Record<string, number> = {};
    for (const r of replies) {
      const k = r.status === 200 ? '200' : `${r.status} ${r.body?.error?.code ?? ''}`.trim();
      tally[k] = (tally[k] ?? 0) + 1;
    }
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    const { rows } = await db.query<{ times_used: string; redemptions: string }>(
      `SELECT v.times_used, (SELECT count(*) FROM redemptions r WHERE r.voucher_id = v.id AND r.rolled_back_at IS NULL)
         AS redemptions FROM vouchers v WHERE v.id = $1`,
      [racer.id],
    );
    await db.end();
    const succeeded = tally['200'] ?? 0;
    const timesUsed = Number(rows[0]!.times_used);
    const stored = Number(rows[0]!.redemptions);
    const over = Math.max(0, succeeded - RACE_MAX, timesUsed - RACE_MAX, stored - RACE_MAX);
    console.log(
      `\nrace through the gateway: ${RACE.toLocaleString('en')} concurrent redeems (distinct orders, ${raceKeys.length} keys) of max_uses ${RACE_MAX} ` +
        `in ${raceMs.toFixed(0)} ms → ${JSON.stringify(tally)}; times_used ${timesUsed}, redemption rows ${stored}`,
    );
    console.log(
      `over-redemption: ${over}${over === 0 && succeeded === RACE_MAX ? ` (exactly ${RACE_MAX} succeeded)` : ''}`,
    );
    if (over > 0) process.exitCode = 1; // a correctness failure, in smoke runs too
  } finally {
    await stack.close();
  }
}
