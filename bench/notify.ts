// Webhook delivery, in one run against one local HTTPS receiver (self-signed CA made now):
//  1. baseline: BENCH_NOTIFY_DELIVERIES bare signed HTTPS POSTs (the versioned signature
//     headers computed per request) from this process through an undici Agent trusting the
//     CA, at the worker's concurrency (HALLMARK_WEBHOOK_CONCURRENCY, default 64), run before
//     and after the burst (the burst is judged against their mean: on a shared machine
//     either side's speed drifts within seconds);
//  2. the real path, in-process: a producer database committing events through the kit
//     outbox (`recordEvents` + `OutboxRelay`) onto JetStream, notify's webhooks half (its
//     own database, the durable fan-out consumer, the delivery worker with a guarded agent
//     trusting the CA; HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, default the
//     worker's) and K endpoints of one enterprise subscribed to the event type:
//     a. burst — M events committed as fast as the producer can (transactions of
//        BENCH_NOTIFY_TX_EVENTS events), deliveries/s = M·K ÷ (last receipt − first commit);
//     b. paced — events committed at the goal rate (1,000 deliveries/s ÷ K events/s) for
//        BENCH_NOTIFY_PACED_SECONDS, latency from the event's commit (`occurred_at`) to its
//        receipt (p50/p99) at an offered load the goal asks for.
// CPU per delivery is printed beside the rates: this process's (receiver, producer, relay and
// notify all live here) and the PostgreSQL backends' of notify's and the producer's databases,
// against the baseline's own; it moves less than the rates with what else the machine runs.
// Goals: the burst ≥ 0.3× the baseline (issue 31); ≥ 1,000 signed deliveries/s and p99
// commit → delivery ≤ 250 ms (issue 6). Every (event, endpoint) must arrive exactly once and
// a sample of deliveries is checked with an independent Stripe-style verifier (either failing
// fails the run). Uses the system NATS with a subject prefix and durable unique to this run;
// both databases are dropped at the end.
import {
  connectBus,
  createGuardedAgent,
  createLogger,
  newId,
  openDatabase,
  OutboxRelay,
  randomBase62,
  recordEvents,
  transaction,
  type Bus,
  type EventInput,
  type EventType,
  type Pool,
} from '@hallmark/kit';
import { dropDatabase, TEST_DATABASE_SERVER, TEST_NATS_URL } from '@hallmark/kit/testing';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { versionedHeaders } from '../services/notify/src/webhooks/domain/signing.js';
import { createWebhooks } from '../services/notify/src/webhooks/index.js';
import { DEFAULT_PER_ENDPOINT } from '../services/notify/src/webhooks/workers/delivery-worker.js';
import {
  makeCertificate,
  TEST_ENCRYPTION_KEY,
  verifyServiceSignature,
} from '../services/notify/test/webhooks-helpers.js';
import { cpuDuring, percentile, sized, verdict } from './lib.js';

const ENDPOINTS = Number(process.env.BENCH_NOTIFY_ENDPOINTS ?? sized(10, 3));
const DELIVERIES = Number(process.env.BENCH_NOTIFY_DELIVERIES ?? sized(10_000, 150));
const TX_EVENTS = Number(process.env.BENCH_NOTIFY_TX_EVENTS ?? 10);
const PACED_SECONDS = Number(process.env.BENCH_NOTIFY_PACED_SECONDS ?? sized(5, 0.5));
const CONCURRENCY = Number(process.env.HALLMARK_WEBHOOK_CONCURRENCY ?? 64);
/** Attempts in flight per endpoint (the worker's default: DEFAULT_PER_ENDPOINT). */
const PER_ENDPOINT = Number(process.env.HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY ?? DEFAULT_PER_ENDPOINT);
const GOAL_RATE = 1_000;
const GOAL_P99_MS = 250;
/** Issue 31: signed deliveries of a burst ≥ 0.3× the bare signed POSTs to the same receiver. */
const GOAL_BURST_RATIO = 0.3;
const EVENT_TYPE = 'transaction.completed';
const NOTIFY_MIGRATIONS = path.join(import.meta.dirname, '..', 'services', 'notify', 'migrations');

interface Hit {
  path: string;
  id: string;
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Receiver {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** A minimal HTTPS receiver: records path, webhook-id, receipt time, headers and body; 200. */
async function startReceiver(tls: { key: string; cert: string }): Promise<Receiver> {
  const hits: Hit[] = [];
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({
        path: req.url ?? '',
        id: String(req.headers['webhook-id'] ?? ''),
        at: Date.now(),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Row {
  name: string;
  deliveries: number;
  rate: number;
  p50: number;
  p99: number;
  note: string;
}

async function baseline(receiver: Receiver, ca: string, n: number): Promise<Row> {
  const agent = new Agent({ connect: { ca }, connections: CONCURRENCY });
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const one = async () => {
    for (let i = next++; i < n; i = next++) {
      const id = newId('event');
      const body = JSON.stringify({ id, type: EVENT_TYPE, created_at: new Date().toISOString(), i });
      const t = performance.now();
      const res = await request(`${receiver.url}/baseline`, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: {
          'content-type': 'application/json',
          ...versionedHeaders({ id, body, timestamp: Math.floor(Date.now() / 1000), secrets: [secret] }),
        },
      });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  latencies.sort((a, b) => a - b);
  return {
    name: `bare signed HTTPS POSTs, ${CONCURRENCY} in flight (baseline)`,
    deliveries: n,
    rate: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    note: failed ? `${failed} non-200` : 'latency = request round trip',
  };
}

export async function benchNotify(): Promise<void> {
  const log = createLogger('bench-notify', process.env.LOG_LEVEL ?? 'warn');
  const run = randomBase62(8).toLowerCase();
  const source = `bnotify${run}`;
  const durable = `notify-webhooks-bench-${run}`;
  const producerDb = `bench_notify_prod_${run}`;
  const notifyDb = `bench_notify_${run}`;
  const tls = await makeCertificate();
  const receiver = await startReceiver(tls);
  let producer: Pool | undefined;
  let pool: Pool | undefined;
  let bus: Bus | undefined;
  let stopAll: (() => Promise<void>) | undefined;
  try {
    const events = Math.ceil(DELIVERIES / ENDPOINTS);
    // The baseline runs before and after the burst, and the burst is judged against their mean:
    // on a shared machine either side's speed drifts within seconds.
    const baseRun = await cpuDuring(TEST_DATABASE_SERVER, [], () =>
      baseline(receiver, tls.cert, events * ENDPOINTS),
    );
    receiver.hits.length = 0;

    producer = await openDatabase({ serverUrl: TEST_DATABASE_SERVER, database: producerDb });
    pool = await openDatabase({
      serverUrl: TEST_DATABASE_SERVER,
      database: notifyDb,
      migrationsDirs: [NOTIFY_MIGRATIONS],
    });
    bus = await connectBus(TEST_NATS_URL, 'bench-notify');
    const webhooks = createWebhooks(
      { pool, bus, log },
      {
        encryptionKeys: TEST_ENCRYPTION_KEY,
        outboundAllowHosts: '127.0.0.1',
        retryScheduleS: [60, 300, 900, 3600, 21600],
        concurrency: CONCURRENCY,
        endpointConcurrency: PER_ENDPOINT,
        agent: (guard) => createGuardedAgent(guard, { tls: { ca: tls.cert }, connections: CONCURRENCY }),
        durable,
        filter: `hallmark.${source}.>`,
      },
    );
    const relay = new OutboxRelay({ pool: producer, js: bus.js, log });
    const enterpriseId = newId('enterprise');
    const principal = {
      enterprise_id: enterpriseId,
      livemode: true,
      actor_id: 'user_bench',
      actor_type: 'user',
      scopes: ['admin.*'],
    };
    const secrets = new Map<string, string>();
    for (let k = 0; k < ENDPOINTS; k++) {
      const ep = await webhooks.api.createEndpoint(
        { principal, url: `${receiver.url}/ep${k}`, events: [EVENT_TYPE] },
        { requestId: 'req_bench', deadlineMs: Infinity },
      );
      secrets.set(`/ep${k}`, ep.secret ?? '');
    }
    for (const w of webhooks.workers) await w.start();
    await relay.start();
    const bus_ = bus;
    stopAll = async () => {
      await relay.stop();
      for (const w of webhooks.workers) await w.stop();
      // The JetStream API's consumer delete, over core NATS (no JetStream client needed here).
      await bus_.nc.request(`$JS.API.CONSUMER.DELETE.HALLMARK.${durable}`).catch(() => undefined);
    };

    const commitTimes = new Map<string, number>();
    const prod = producer;
    const commit = async (n: number): Promise<void> => {
      const inputs: EventInput<EventType>[] = Array.from({ length: n }, () => ({
        type: EVENT_TYPE,
        enterpriseId,
        livemode: true,
        data: {
          // The spec's Transaction, whole: the outbox checks every event against its contract.
          object: {
            id: newId('transaction'),
            type: 'voucher_redemption',
            amount: 150,
            currency: 'USD',
            status: 'completed',
            user_id: 'user_bench',
            description: 'bench redemption',
            metadata: {},
            created_at: new Date().toISOString(),
          },
        },
      }));
      const envelopes = await transaction(prod, (tx) => recordEvents(tx, source, inputs));
      for (const e of envelopes) commitTimes.set(e.id, Date.parse(e.occurred_at));
    };
    const waitFor = async (expected: number, timeoutMs: number): Promise<boolean> => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.hits.length < expected && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      return receiver.hits.length >= expected;
    };
    const summarize = (name: string, hits: Hit[], expected: number, start: number, note: string): Row => {
      const latencies = hits.map((h) => h.at - commitTimes.get(h.id)!).sort((a, b) => a - b);
      const last = Math.max(...hits.map((h) => h.at));
      const unique = new Set(hits.map((h) => `${h.path} ${h.id}`)).size;
      const issues = [
        hits.length < expected ? `${expected - hits.length} missing` : '',
        unique < hits.length ? `${hits.length - unique} duplicates` : '',
      ].filter(Boolean);
      return {
        name,
        deliveries: hits.length,
        rate: hits.length / ((last - start) / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        note: issues.length ? issues.join(', ') : note,
      };
    };

    // Warm-up: connections, prepared plans, the consumer.
    await commit(ENDPOINTS);
    await waitFor(ENDPOINTS * ENDPOINTS, 60_000);
    receiver.hits.length = 0;

    // a. burst
    const burstStart = Date.now();
    let burstCommitted = 0;
    const burstRun = await cpuDuring(TEST_DATABASE_SERVER, [producerDb, notifyDb], async () => {
      for (let sent = 0; sent < events; sent += TX_EVENTS) await commit(Math.min(TX_EVENTS, events - sent));
      burstCommitted = Date.now();
      await waitFor(events * ENDPOINTS, 300_000);
    });
    const burstHits = receiver.hits.splice(0);
    const baseAfter = await cpuDuring(TEST_DATABASE_SERVER, [], () =>
      baseline(receiver, tls.cert, events * ENDPOINTS),
    );
    receiver.hits.length = 0;
    const base: Row = {
      ...baseRun.result,
      name: `bare signed HTTPS POSTs, ${CONCURRENCY} in flight (baseline, before and after)`,
      rate: (baseRun.result.rate + baseAfter.result.rate) / 2,
      note: `before ${baseRun.result.rate.toFixed(0)}/s, after ${baseAfter.result.rate.toFixed(0)}/s; ${baseRun.result.note}`,
    };
    const baseCpu =
      (baseRun.self + baseAfter.self) / (baseRun.result.deliveries + baseAfter.result.deliveries);
    const burst = summarize(
      `notify, burst: ${events} events × ${ENDPOINTS} endpoints (≤ ${PER_ENDPOINT} in flight each)`,
      burstHits,
      events * ENDPOINTS,
      burstStart,
      `latency = commit → receipt; commits took ${((burstCommitted - burstStart) / 1000).toFixed(2)} s`,
    );

    // b. paced at the goal: one transaction of ceil(rate/K/50) events every 20 ms.
    const perTick = Math.max(1, Math.round(GOAL_RATE / ENDPOINTS / 50));
    const ticks = Math.round(PACED_SECONDS * 50);
    const pacedStart = Date.now();
    for (let t = 0; t < ticks; t++) {
      const due = pacedStart + t * 20;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      void commit(perTick);
    }
    const pacedEvents = perTick * ticks;
    await waitFor(pacedEvents * ENDPOINTS, 300_000);
    const paced = summarize(
      `notify, paced: ${(perTick * 50 * ENDPOINTS).toFixed(0)} deliveries/s offered for ${PACED_SECONDS} s`,
      receiver.hits.splice(0),
      pacedEvents * ENDPOINTS,
      pacedStart,
      'latency = commit → receipt',
    );

    // Independent check of a sample of signatures (after timing, so it costs nothing above).
    const sample = burstHits.filter((_, i) => i % Math.max(1, Math.floor(burstHits.length / 200)) === 0);
    const bad = sample.filter(
      (h) => !verifyServiceSignature(String(h.headers['x-service-signature']), h.body, secrets.get(h.path)!),
    ).length;

    const rows = [base, burst, paced];
    console.log(
      `\n${'case'.padEnd(56)} ${'delivered'.padStart(9)} ${'per s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'× baseline'.padStart(10)}  note`,
    );
    for (const r of rows)
      console.log(
        `${r.name.padEnd(56)} ${String(r.deliveries).padStart(9)} ${r.rate.toFixed(0).padStart(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${(r.rate / base.rate).toFixed(3).padStart(10)}  ${r.note}`,
      );
    const burstRatio = burst.rate / base.rate;
    const burstCpu = (burstRun.self + burstRun.pg[0]! + burstRun.pg[1]!) / burst.deliveries;
    const pacedMet = paced.p99 <= GOAL_P99_MS && paced.rate >= GOAL_RATE * 0.95;
    console.log(
      `\nburst ratio: ${burstRatio.toFixed(3)}× the bare signed POSTs to the same receiver ` +
        `(goal ≥ ${GOAL_BURST_RATIO}×: ${verdict(burstRatio >= GOAL_BURST_RATIO, 'MISSED')})` +
        `\ngoal: ≥ ${GOAL_RATE} deliveries/s → burst ${burst.rate.toFixed(0)}/s ${verdict(burst.rate >= GOAL_RATE, 'MISSED')}; ` +
        `p99 commit → delivery ≤ ${GOAL_P99_MS} ms at ${GOAL_RATE}/s offered → ${paced.p99.toFixed(0)} ms ${verdict(pacedMet, 'MISSED')}` +
        `\nCPU per delivery (ms): baseline ${baseCpu.toFixed(3)} (this process); burst ${burstCpu.toFixed(3)} = ` +
        `${(burstRun.self / burst.deliveries).toFixed(3)} this process (receiver, producer, relay, notify) + ` +
        `${(burstRun.pg[1]! / burst.deliveries).toFixed(3)} notify's PostgreSQL + ` +
        `${(burstRun.pg[0]! / burst.deliveries).toFixed(3)} the producer's (outbox); ` +
        `by CPU the burst is ${(baseCpu / burstCpu).toFixed(3)}× the baseline` +
        `\nsignatures: ${sample.length - bad}/${sample.length} sampled deliveries verified (Stripe-style, independent verifier)` +
        `\nload average when measured: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
    );
    // Lost, doubled or wrongly signed deliveries are failures, not measurements (smoke runs too).
    if (bad > 0 || [burst, paced].some((r) => /missing|duplicates/.test(r.note))) {
      console.log('!!! FAILED: deliveries missing, doubled or not verified (see the notes)');
      process.exitCode = 1;
    }
  } finally {
    await stopAll?.().catch((err: unknown) => console.error('stopping notify failed', err));
    await bus?.close().catch(() => undefined);
    for (const [p, db] of [
      [producer, producerDb],
      [pool, notifyDb],
    ] as const) {
      if (!p) continue;
      p.on('error', () => undefined);
      await p.end().catch(() => undefined);
      await dropDatabase(db).catch((err: unknown) => console.error(`could not drop ${db}`, err));
    }
    await receiver.close();
  }
}
