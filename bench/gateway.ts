// Gateway costs, in one run:
//  1. one gateway → gRPC → service round trip (GET an API key: auth from warm cache, one
//     gRPC call, one indexed read) against a bare Fastify handler in this process;
//  2. authentication + rate limiting: the same trivial handler mounted public and behind
//     API-key auth on an in-process gateway wired to the real keys service, with the
//     in-memory limiter and, when Redis runs (REDIS_URL, else 127.0.0.1:6379), with the Redis
//     one every replica shares (as production runs: docs/security.md); the public and keyed
//     routes alternate for BENCH_ROUNDS short rounds. The cost is judged by CPU per request
//     of every process the request touches (this process: the in-process gateway and the
//     load generator; keys; keys' database), keyed against public, median of the rounds, and
//     split into this process's share and keys' (the usage records a keyed request leaves);
//     the throughput ratio is printed beside it but not judged (on this shared 2-core machine
//     its rounds range over tens of percent);
//  3. p99 of a warm-cache key verification.
// Every case measures what it names, not refusals: the keyed cases spread their requests over
// KEYS keys of one enterprise (a production key allows 100 requests per second in its burst
// window), so the limiter runs for every request and refuses none; non-2xx answers are printed
// beside every ratio, and a case that has any fails loudly (exit code 1).
import { startGateway } from '@hallmark/gateway/gateway';
import { loadGatewayConfig } from '@hallmark/gateway/config';
import { KeyVerifier } from '@hallmark/gateway/auth/key-verifier';
import type { TestStack } from '@hallmark/e2e';
import { portInUse } from '@hallmark/devstack';
import { createGrpcClient, serviceDatabaseUrl, sha256Hex } from '@hallmark/kit';
import { KeysServiceClient } from '@hallmark/proto/keys/v1/keys';
import Fastify from 'fastify';
import os from 'node:os';
import {
  cpuPerRequest,
  load,
  loadSeconds,
  loadWithKeys,
  percentile,
  sized,
  table,
  unintendedNon2xx,
  verdict,
} from './lib.js';
import { benchStack } from './stack.js';

/** Keys the keyed cases spread over: ≥ 3× the rate the keyed cases reach ÷ 100 per key per second. */
const KEYS = Number(process.env.BENCH_GATEWAY_KEYS ?? sized(150, 5));
/** Alternating rounds of the public and the keyed route per limiter. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(5, 1));

async function issueKeys(stack: TestStack, session: string, n: number) {
  const keys: { id: string; key: string }[] = [];
  while (keys.length < n) {
    const res = await stack.call('POST', '/api/v1/api-keys', {
      auth: session,
      body: {
        name: `bench ${keys.length}`,
        type: 'production',
        permissions: ['admin.*'],
        rateLimit: 100_000,
      },
    });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * (res.body?.error?.retry_after ?? 1)));
      continue;
    }
    if (res.status !== 201) throw new Error(`could not create a bench key: ${res.status} ${res.text}`);
    keys.push({ id: res.body.id, key: res.body.key });
  }
  return keys;
}

export async function benchGateway(): Promise<void> {
  const stack = await benchStack();
  try {
    const token = await stack.token();
    const issued = await issueKeys(stack, token, KEYS);
    const keyList = issued.map((k) => k.key);
    const key = keyList[0]!;

    const bare = Fastify();
    bare.get('/x', async () => ({ ok: true }));
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

    // In-process gateways with two bench routes doing identical (trivial) work: one with the
    // in-memory limiter, one (when Redis runs) with the Redis limiter replicas share.
    const redisUrl =
      process.env.REDIS_URL ?? ((await portInUse(6379)) ? 'redis://127.0.0.1:6379' : undefined);
    const inProcess = (redis?: string) =>
      startGateway(
        loadGatewayConfig({
          ...stack.env,
          HALLMARK_PORT: '0',
          LOG_LEVEL: 'warn',
          ...(redis ? { REDIS_URL: redis } : {}),
        }),
        {
          extraRoutes: (app) => {
            app.get('/bench/public', { config: { auth: 'public' } }, async () => ({ ok: true }));
            app.get('/bench/auth', { config: { auth: 'key', scope: 'transactions.read' } }, async () => ({
              ok: true,
            }));
          },
        },
      );
    const gw = await inProcess();
    const gwRedis = redisUrl ? await inProcess(redisUrl) : undefined;
    // Warm the key caches of every gateway (every key verified once).
    await loadWithKeys('warm-up', `${gw.url}/bench/auth`, keyList, { seconds: 2 });
    if (gwRedis) await loadWithKeys('warm-up', `${gwRedis.url}/bench/auth`, keyList, { seconds: 2 });
    await loadWithKeys('warm-up', `${stack.gatewayUrl}/api/v1/api-keys/${issued[0]!.id}`, keyList, {
      seconds: 2,
    });

    const rows = [
      await load('bare Fastify handler (baseline)', `${bareUrl}/x`),
      await loadWithKeys(
        `gateway → gRPC keys.GetKey → PostgreSQL (${KEYS} keys)`,
        `${stack.gatewayUrl}/api/v1/api-keys/${issued[0]!.id}`,
        keyList,
      ),
      await load('gateway /healthz (no downstream call)', `${stack.gatewayUrl}/healthz`),
    ];
    // The auth cost: the public and the keyed route of one gateway, alternating for ROUNDS
    // short rounds (on a shared machine either side's speed drifts within seconds); the
    // median of the rounds' ratios is the measurement.
    const seconds = loadSeconds(undefined, 3);
    // CPU per request of this process (the in-process gateway and the generator, printed as
    // "load generator"), the keys service and its database's backends: usage batches (a few
    // a second) and the verification each key needs once per HALLMARK_KEY_CACHE_TTL_MS (KEYS
    // lookups per 5 s: at low throughput, on a busy machine, most of keys' share). Less moved
    // than req/s by what else the machine runs, so its ratio is printed beside the throughput one.
    const keysDb = {
      url: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_keys`),
      database: `${stack.prefix}_keys`,
    };
    // (This process, the in-process gateway with the generator, is cpuPerRequest's "load generator".)
    const procs = [{ name: 'keys', pid: stack.processes.get('keys')!.pid }];
    const measured = async (name: string, url: string) => {
      const { result, parts } = await cpuPerRequest(
        procs,
        keysDb,
        () => loadWithKeys(name, url, keyList, { seconds }),
        (r) => r.count ?? 1,
      );
      return { result, cpu: parts.reduce((sum, [, ms]) => sum + ms, 0), parts };
    };
    const authCost = async (label: string, url: string) => {
      const ratios: number[] = [];
      const rounds: { cpuRatio: number; pub: [string, number][]; authed: [string, number][] }[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        // The same requests both ways (the key header too, which the public route ignores):
        // the generator shares this process with the gateway, so its per-request work must match.
        const pub = await measured(`${label}, public route (round ${round})`, `${url}/bench/public`);
        const authed = await measured(
          `${label}, API key + rate limit (${KEYS} keys, round ${round})`,
          `${url}/bench/auth`,
        );
        rows.push(pub.result, authed.result);
        ratios.push(authed.result.rps / pub.result.rps);
        rounds.push({ cpuRatio: pub.cpu / authed.cpu, pub: pub.parts, authed: authed.parts });
      }
      return { label, ratios, rounds };
    };
    const costs = [await authCost('in-process gateway, limiter in memory', gw.url)];
    if (gwRedis) costs.push(await authCost('in-process gateway, limiter in Redis', gwRedis.url));
    table(rows, rows[0]!);
    const bad = unintendedNon2xx(rows);
    console.log('');
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const show = (p: [string, number][]) => p.map(([n, ms]) => `${n} ${ms.toFixed(3)}`).join(', ');
    for (const { label, ratios, rounds } of costs) {
      // The headline: CPU per request of every process the keyed request touches (this one —
      // the in-process gateway with the load generator —, keys, keys' database), keyed against
      // public, median of the rounds. Throughput moves with whatever else the machine runs;
      // CPU per request much less.
      const byCpu = [...rounds].sort((a, b) => a.cpuRatio - b.cpuRatio);
      const median = byCpu[Math.floor(byCpu.length / 2)]!;
      const cpuCost = 1 - median.cpuRatio;
      const total = median.authed.reduce((sum, [, ms]) => sum + ms, 0);
      // Where the extra CPU goes (of the keyed request's CPU): this process (authentication,
      // the limiter, the usage record and its shipping, the rate-limit headers both ways),
      // and keys with its database (the usage batches: an audit row per request, roll-ups).
      const delta = (names: string[]) =>
        median.authed.filter(([n]) => names.includes(n)).reduce((sum, [, ms]) => sum + ms, 0) -
        median.pub.filter(([n]) => names.includes(n)).reduce((sum, [, ms]) => sum + ms, 0);
      const here = delta(['load generator']) / total;
      const keys = delta(['keys', 'postgres']) / total;
      const non2xx = rows.filter((r) => r.name.startsWith(label)).reduce((n, r) => n + r.non2xx, 0);
      console.log(
        `authentication + rate limiting cost, ${label}: ${pct(cpuCost)} by CPU per request ` +
          `(goal ≤ 10%: ${verdict(cpuCost <= 0.1)}; rounds: ${byCpu.map((r) => pct(1 - r.cpuRatio)).join(', ')}); ` +
          `non-2xx ${non2xx}` +
          (bad.some((r) => r.name.startsWith(label)) ? ' — INVALID: refusals, not authentication' : '') +
          `\n  of it: this process (gateway + generator) ${pct(here)}, keys and its database (usage records) ${pct(keys)}` +
          `\n  CPU per request, median round (ms): public: ${show(median.pub)}; API key: ${show(median.authed)}`,
      );
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(
        `  by throughput (noisy on a shared machine, not judged): median ${pct(1 - sorted[Math.floor(sorted.length / 2)]!)} ` +
          `(rounds: ${sorted.map((r) => pct(1 - r)).join(', ')})`,
      );
    }
    if (!gwRedis)
      console.log('(no Redis on 127.0.0.1:6379 and no REDIS_URL: the Redis limiter was not measured)');
    console.log(
      `load average when measured: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );

    // Warm-cache verification latency, measured call by call.
    const keys = createGrpcClient(KeysServiceClient, stack.env.HALLMARK_KEYS_ADDR!);
    const verifier = new KeyVerifier(keys.api, 60_000);
    await verifier.verify(key);
    const samples: number[] = [];
    const verifications = sized(100_000, 1_000);
    for (let i = 0; i < verifications; i++) {
      const t = process.hrtime.bigint();
      await verifier.verify(key);
      samples.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    samples.sort((a, b) => a - b);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < verifications; i++) sha256Hex(key);
    const hashUs = Number(process.hrtime.bigint() - t0) / 1000 / verifications;
    console.log(
      `key verification, warm cache: p50 ${percentile(samples, 50).toFixed(2)} µs, p99 ${percentile(samples, 99).toFixed(2)} µs ` +
        `(baseline: one SHA-256 of the key ${hashUs.toFixed(2)} µs)`,
    );
    keys.close();
    await gw.close();
    await gwRedis?.close();
    await bare.close();
  } finally {
    await stack.close();
  }
}
