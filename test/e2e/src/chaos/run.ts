// One chaos run: the stack (devstack's startStack through the e2e harness, N replicas of each
// backend, a NATS of its own), the sinks, the workload and the fault injector side by side;
// then settle, collect, check, print. `pnpm chaos` and the CI test both call runChaos().
import { sleep, startClusteredEngines } from '@hallmark/devstack';
import { startPlatformSim, type PlatformSim } from '@hallmark/platform-sim';
import { newId, SERVICE_NAMES } from '@hallmark/kit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceQuery } from '../bulk.js';
import { startTestStack, type TestStack } from '../index.js';
import { collectFacts, type PlatformFulfillments } from './collect.js';
import { faultKinds, injectFaults, type Parts } from './faults.js';
import { emptyHistory, type History } from './history.js';
import { checkInvariants, type Facts, type InvariantResult } from './invariants.js';
import { fork } from './prng.js';
import { startSinks } from './sinks.js';
import { runGifts } from './gifts.js';
import { orderGid, runOrders, type Shop } from './orders.js';
import { signedCallback } from '../platform.js';
import { call, runWorkload, setUp } from './workload.js';

export interface ChaosOptions {
  seconds: number;
  seed: number;
  replicas: number;
  /** An embedded PostgreSQL of the run's own, so the fault injector can pause it. */
  ownPostgres?: boolean;
  /**
   * Clustered engines (Patroni + HAProxy, a 3-server NATS cluster, a 3-node Restate cluster)
   * and their faults instead of single nodes.
   */
  clustered?: boolean;
  /** Patroni's synchronous_mode when clustered (default true). */
  synchronous?: boolean;
  /** How long the system may take to settle after the load (jobs end, outboxes drain). */
  settleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  history: History;
  results: InvariantResult[];
  ok: boolean;
  summary: string;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(path.join(tmpdir(), 'hallmark-chaos-'));
  const sinks = await startSinks(dir, fork(o.seed, 3));
  const sim = await startPlatformSim({ apiKey: PLATFORM_APP.key, apiSecret: PLATFORM_APP.secret });
  log(`chaos: seed ${o.seed}, ${o.seconds} s of load, ${o.replicas} replica(s) of each backend`);
  const t0 = Date.now();
  const cluster = o.clustered
    ? await startClusteredEngines({
        dataDir: dir,
        ...(o.synchronous === undefined ? {} : { synchronous: o.synchronous }),
      })
    : undefined;
  if (cluster)
    log(
      `chaos: clustered engines up in ${((Date.now() - t0) / 1000).toFixed(1)} s (PostgreSQL ${cluster.postgres.url}, NATS ${cluster.nats.url}, Restate ${cluster.restate.ingressUrl})`,
    );
  const stack = await startTestStack({
    ...(o.ownPostgres && !cluster ? { forceEmbeddedPostgres: true } : {}),
    ...(cluster ? { clustered: cluster } : {}),
    anvil: true,
    restate: true,
    smtp: true, // gift e-mails (the workflow notifies before it waits for a claim)
    env: {
      NODE_EXTRA_CA_CERTS: sinks.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      // Stuck transactions are replaced after 3 s (not 60 s), so the fee spike exercises it.
      HALLMARK_CHAIN_REPLACE_AFTER_MS: '3000',
      HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '500',
      HALLMARK_BULK_SUBMIT_INTERVAL_MS: '500',
      HALLMARK_BULK_BATCH_SIZE: '10',
      // Failed webhook attempts retried within seconds, enough times to outlast the flaky phase.
      HALLMARK_WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,3,3,5,5,5,5,5,5',
      HALLMARK_WEBHOOK_DISABLE_AFTER: '1000',
      // Gifts left open expire within the run (72 s); every claim comes from 127.0.0.1, so the
      // per-client invalid-link limit (a lost race counts) and the per-user claim limit are lifted.
      HALLMARK_GIFT_TTL_HOURS: '0.02',
      HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT: '100000',
      HALLMARK_GIFT_CLAIM_LIMIT: '1000',
      // The platform simulator's shop; its Admin API answers within the 2 s timeout.
      HALLMARK_PLATFORM_ADMIN_URL: sim.adminUrlTemplate,
      HALLMARK_PLATFORM_API_KEY: PLATFORM_APP.key,
      HALLMARK_PLATFORM_API_SECRET: PLATFORM_APP.secret,
      HALLMARK_PLATFORM_APP_URL: 'https://app.example.test/platform/installed',
      HALLMARK_PLATFORM_HTTP_TIMEOUT_MS: '2000',
      HALLMARK_PLATFORM_SUBMIT_INTERVAL_MS: '500',
    },
  });
  const parts: Parts = {
    nats: stack.nats,
    ...(stack.restate ? { restate: stack.restate } : {}),
    ...(cluster ? { cluster } : {}),
  };
  let report: ChaosReport | undefined;
  try {
    const replicas = SERVICE_NAMES.flatMap((name) =>
      Array.from({ length: o.replicas - 1 }, (_, i) => [name, i + 1] as const),
    );
    await Promise.all(replicas.map(([name, r]) => stack.startReplica(name, r)));
    log(
      `chaos: stack up in ${((Date.now() - t0) / 1000).toFixed(1)} s (data ${stack.env.HALLMARK_DATA_DIR})`,
    );
    const { skipped } = faultKinds(stack, cluster !== undefined);
    for (const s of skipped) log(`chaos: fault ${s}`);
    report = await drive(stack, parts, sinks, sim, o, log);
    return report;
  } finally {
    // A restarted NATS is not the one the stack knows (Restate's restart goes through the stack).
    if (parts.nats !== stack.nats) await parts.nats.stop();
    await stack.close().catch((err) => log(`chaos: stopping the stack: ${(err as Error).message}`));
    await sinks.close();
    await sim.close();
    await cluster?.stop();
    // The run's data (a clustered run's PostgreSQL, NATS and Restate nodes: ~400 MB) is evidence
    // when an invariant failed: kept then, and said where; E2E_KEEP_LOGS=1 keeps it always.
    if (report?.ok && process.env.E2E_KEEP_LOGS !== '1') rmSync(dir, { recursive: true, force: true });
    else log(`chaos: data kept in ${dir}`);
  }
}

const PLATFORM_APP = { key: 'hallmark-chaos-app', secret: 'chaos-app-secret-0123456789' };
const SHOP = 'chaos-boutique.myshopify.com';

/** Installs the app on the simulator's shop (OAuth, as a merchant would) and adds a product. */
async function installShop(
  stack: TestStack,
  session: string,
  sim: PlatformSim,
  imageUrl: string,
): Promise<Shop> {
  sim.sim.addShop(SHOP);
  const callback = await fetch(await signedCallback(stack, session, SHOP), { redirect: 'manual' });
  if (callback.status !== 302)
    throw new Error(`setting up the run: the install callback answered ${callback.status}`);
  const product = sim.sim.addProduct(SHOP, { title: 'Chaos watch', imageUrl });
  return { sim: sim.sim, domain: SHOP, productId: product.id };
}

/** The simulator's fulfillments of the run's orders (tracking numbers), by order gid. */
function platformFulfillments(sim: PlatformSim): PlatformFulfillments {
  const map: PlatformFulfillments = new Map();
  for (const f of sim.sim.view(SHOP).fulfillments) {
    const gid = orderGid(f.orderId);
    map.set(gid, [...(map.get(gid) ?? []), f.trackingNumber]);
  }
  return map;
}

async function drive(
  stack: TestStack,
  parts: Parts,
  sinks: Awaited<ReturnType<typeof startSinks>>,
  sim: PlatformSim,
  o: ChaosOptions,
  log: (line: string) => void,
): Promise<ChaosReport> {
  const h = emptyHistory(o.seed);
  h.receipts = sinks.receipts;
  const enterprise = newId('enterprise');
  const session = await stack.token({ ent: enterprise, role: 'owner' });
  const fixtures = await setUp(h, stack.gatewayUrl, session, sinks, fork(o.seed, 1));
  const shop = await installShop(stack, session, sim, `${sinks.url}/img/shop.png`);
  h.started = Date.now();
  const stopLoad = new AbortController();
  const stopFaults = new AbortController();
  log('chaos: fault timeline');
  const faults = injectFaults(
    { stack, parts, dataDir: stack.env.HALLMARK_DATA_DIR!, replicas: o.replicas, rng: fork(o.seed, 2), log },
    h,
    stopFaults.signal,
  );
  const load = runWorkload(
    h,
    stack.gatewayUrl,
    session,
    fixtures,
    sinks.url,
    fork(o.seed, 4),
    stopLoad.signal,
  );
  const gifts = runGifts(
    h,
    stack.gatewayUrl,
    session,
    (sub) => stack.token({ sub }),
    (sub, email) => stack.token({ ent: enterprise, sub, email }),
    fork(o.seed, 5),
    stopLoad.signal,
  );
  const orders = runOrders(h, shop, fork(o.seed, 6), stopLoad.signal);
  await sleep(o.seconds * 1000);
  // The load goes on until every kind was injected once (the first deck holds each), so a
  // short run on a slow machine still sees them all.
  const kinds = faultKinds(stack, parts.cluster !== undefined).kinds.length;
  let injectorEnded = false; // a fault that failed (a part that did not come back) ends it
  void faults.then(
    () => (injectorEnded = true),
    () => (injectorEnded = true),
  );
  while (!injectorEnded && new Set(h.faults.map((f) => f.kind)).size < kinds) await sleep(250);
  stopFaults.abort();
  await faults; // the fault in progress ends (its part back up) before the load stops
  stopLoad.abort();
  await Promise.all([load, gifts, orders]);
  h.loadStopped = Date.now();

  // Recovery: from the last fault's end, how long until a redemption is answered normally.
  const lastFault = Math.max(...h.faults.map((f) => f.end), h.started);
  for (;;) {
    const r = await call(h, stack.gatewayUrl, 'validateVoucher', ['gateway', 'keys', 'vouchers'], {
      method: 'POST',
      path: '/api/v1/vouchers/validate',
      auth: fixtures.key,
      body: { code: fixtures.vouchers[0]!.code, order_id: 'order_probe', amount: 1000 },
    });
    if (r.status > 0 && r.status < 500) {
      h.recoveryMs = Math.max(0, Date.now() - lastFault);
      break;
    }
    if (Date.now() - lastFault > 120_000) break;
    await sleep(250);
  }

  sinks.flaky = false;
  log('chaos: load stopped; settling');
  // Paid orders the platform has not fulfilled, nor recorded as not to be fulfilled.
  const unfulfilled = async () => {
    const done = platformFulfillments(sim);
    const ended = await serviceQuery<{ order_id: string }>(
      stack,
      'platform',
      `SELECT order_id FROM fulfilments WHERE status IN ('skipped', 'failed')`,
    );
    const over = new Set(ended.map((r) => r.order_id));
    return h.orders.filter((x) => !done.has(orderGid(x.orderId)) && !over.has(orderGid(x.orderId))).length;
  };
  await settle(stack, h, o.settleTimeoutMs ?? 120_000, log, unfulfilled);
  const facts = await collectFacts(stack, h, {
    shop: SHOP,
    fulfillments: platformFulfillments(sim),
  });
  const results = checkInvariants(h, facts);
  const ok = results.every((r) => r.violations.length === 0);
  const summary = summarize(h, results, o, facts);
  // The whole history, for a closer look at a failing run.
  const file = path.join(tmpdir(), `hallmark-chaos-${o.seed}.json`);
  writeFileSync(file, JSON.stringify({ history: h, results }, null, 1));
  log(summary);
  log(`  history: ${file}`);
  return { history: h, results, ok, summary };
}

/** Waits until jobs ended, outboxes drained, webhooks delivered, the relayer idle, paid orders fulfilled and no gift mid-claim. */
async function settle(
  stack: TestStack,
  h: History,
  timeoutMs: number,
  log: (l: string) => void,
  unfulfilled: () => Promise<number>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const q = (service: string, sql: string, params: unknown[] = []) =>
    serviceQuery<{ n: number }>(stack, service, sql, params).then((r) => r[0]?.n ?? 0);
  let waiting = '';
  while (Date.now() < deadline) {
    const counts: Record<string, number> = {
      'open jobs': await q(
        'bulk',
        `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status NOT IN ('completed','failed','cancelled')`,
        [h.jobs.map((j) => j.id)],
      ),
      'pending deliveries': await q(
        'notify',
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`,
      ),
      'open submissions': await q(
        'certificates',
        `SELECT count(*)::int AS n FROM chain_submissions WHERE status IN ('pending','signed','sent')`,
      ),
      'paid orders unfulfilled': await unfulfilled(),
      'gifts claiming': await q(
        'certificates',
        `SELECT count(*)::int AS n FROM gifts WHERE status = 'claiming'`,
      ),
    };
    for (const s of SERVICE_NAMES)
      counts[`${s} outbox`] = await q(
        s,
        'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
      ).catch(() => 0);
    waiting = Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    if (!waiting) {
      await sleep(1000); // deliveries answered, receipts recorded
      return;
    }
    await sleep(1000);
  }
  log(`chaos: not settled after ${timeoutMs / 1000} s: ${waiting}`);
}

function summarize(h: History, results: InvariantResult[], o: ChaosOptions, facts: Facts): string {
  const byKind = new Map<string, number>();
  for (const f of h.faults) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  const statuses = new Map<string, number>();
  for (const c of h.calls) {
    const k = c.status === 0 ? 'no answer' : `${Math.floor(c.status / 100)}xx`;
    statuses.set(k, (statuses.get(k) ?? 0) + 1);
  }
  const lines = [
    '',
    `chaos summary — seed ${o.seed}, ${o.seconds} s load, ${o.replicas} replica(s) per backend`,
    `  faults   ${h.faults.length}: ${[...byKind].map(([k, n]) => `${k} ×${n}`).join(', ')}`,
    `  503s     seconds with a 503 per fault (mean, max): ${[...unavailableSeconds(h)]
      .map(([k, s]) => `${k} ${s.mean.toFixed(1)}/${s.max}`)
      .join(', ')}`,
    `  calls    ${h.calls.length}: ${[...statuses]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `  work     ${h.redemptions.length} redemptions answered, ${h.jobs.length} bulk jobs, ${h.revocations.length} keys revoked, ${h.receipts.length} webhook attempts received`,
    `  gifts    ${h.gifts.length} created, ${count(facts.gifts, 'claimed')} claimed (${contested(h)} by two claimers at once), ${count(facts.gifts, 'pending')} open, ${count(facts.gifts, 'gone')} expired`,
    `  orders   ${h.orders.length} paid, ${h.orders.reduce((n, x) => n + x.webhooks.length, 0)} orders/paid deliveries (${h.orders.filter((x) => new Set(x.webhooks.map((w) => w.webhookId)).size > 1).length} orders paid twice at once, ${h.orders.reduce((n, x) => n + x.webhooks.filter((w) => w.status !== 200).length, 0)} unanswered and retried), ${facts.orders.filter((x) => x.platformFulfillments.length === 1).length} fulfilled`,
    ...facts.orders
      .filter((x) => x.jobs.some((j) => j.failed.length > 0))
      .map(
        (x) =>
          `           ${x.gid}: mint failed (${x.jobs
            .flatMap((j) => j.failed.map((e) => `${j.id}#${e}`))
            .join('; ')
            .slice(0, 300)})`,
      ),
    `  chain    ${facts.certificates.length} tokens minted, ${facts.relayer.latestNonce} relayer transactions, ${facts.feeBumped} fee-bumped`,
    `  recovery ${h.recoveryMs === undefined ? 'none' : `${(h.recoveryMs / 1000).toFixed(1)} s after the last fault`}`,
    '  invariants',
  ];
  for (const r of results) {
    const mark = r.skipped ? 'skip' : r.violations.length ? 'FAIL' : 'ok  ';
    lines.push(
      `    ${mark} ${r.name} (${r.checked} checked${r.violations.length ? `, ${r.violations.length} violated` : ''})`,
    );
    for (const v of r.violations.slice(0, 10)) lines.push(`           ${v}`);
    if (r.violations.length > 10) lines.push(`           … and ${r.violations.length - 10} more`);
  }
  lines.push(results.every((r) => r.violations.length === 0) ? '  PASS' : '  FAIL');
  return lines.join('\n');
}

const count = <T extends { status: string }>(xs: T[], status: string) =>
  xs.filter((x) => x.status === status).length;

/** Gifts two users claimed at once. */
function contested(h: History): number {
  const users = new Map<string, Set<string>>();
  for (const c of h.giftClaims) users.set(c.giftId, (users.get(c.giftId) ?? new Set()).add(c.user));
  return [...users.values()].filter((s) => s.size > 1).length;
}

/**
 * Per fault kind, how many wall-clock seconds (from the fault's start to 5 s after its end)
 * saw at least one 503 or unanswered call: what each fault costs the clients.
 */
function unavailableSeconds(h: History): Map<string, { mean: number; max: number }> {
  const failed = h.calls.filter((c) => c.status === 503 || c.status === 0);
  const perKind = new Map<string, number[]>();
  for (const f of h.faults) {
    const seconds = new Set<number>();
    for (const c of failed)
      if (c.start >= f.start && c.start <= f.end + 5000) seconds.add(Math.floor(c.start / 1000));
    perKind.set(f.kind, [...(perKind.get(f.kind) ?? []), seconds.size]);
  }
  const out = new Map<string, { mean: number; max: number }>();
  for (const [k, v] of perKind)
    out.set(k, { mean: v.reduce((a, b) => a + b, 0) / v.length, max: Math.max(...v) });
  return out;
}
