// Public certificate reads, in one run on one database: `GET /api/certificate/public/:id` of a
// certificate minted on anvil through the real gateway process (gateway → gRPC
// GetPublicCertificate → certificates service → PostgreSQL) against a bare Fastify + `pg`
// process answering the same JSON from the same statement. Three gateway paths: the public
// cache warm (goal ≥ 1.0× the bare process; its hit rate from the `X-Cache` header), a second
// gateway process with the cache off (every read a miss: the cold path, gRPC each time), and
// a client revalidating with If-None-Match (304, no body).
//
// The miss path reads distinct certificates, uniformly at random over the long tail's
// population, and is judged against the bare process reading the same way: the gateway
// batches concurrent misses into one call (services/gateway/src/cache/public-reads.ts), and
// reading one id over and over would let a batch of the same id stand for many reads.
//
// Fair by construction: both servers are processes of their own, loaded by the same
// generator in this process (same connections, same duration, warmed up first); the bare one
// runs the certificates service's statement word for word with a pool of the same size (and,
// for the issuer line the gateway adds, the service's issuer profile read), and
// the two answers are checked to be the same JSON before anything is measured. Rounds
// alternate (on a shared machine either side's speed drifts) and the median ratio counts.
// CPU per request of every process on each path is printed too: on a machine whose CPUs are
// the limit, the ratio of those totals is what the throughput ratio tends to, noise or not.
//
// The long tail (issue 31, bench/long-tail.ts): LONG_TAIL certificates (100,000; smoke 1,000)
// read by Zipf(1.1) rank, the shape of real QR scans, through the bare process, the gateway's
// public read (goal ≥ 1.0× the bare process) and its verification JSON (checks on the chain
// index), with the gateway's hit rate. The miss path (cache off) has a goal of ≥ 0.5×.
//
// The public route is rate limited per client IP (300/min). Each load connection therefore
// speaks from its own loopback address (127.100.x.y) and moves to a fresh one every 250
// requests: the limiter runs and consumes for every request but never refuses. One row also
// loads the gateway from a single IP, to show the limiter refusing (429s) by design.
import { freePort, spawnProcess, type ProcessHandle } from '@hallmark/devstack';
import type { TestStack } from '@hallmark/e2e';
import { startExtraGateway } from '@hallmark/e2e/gateway2';
import { createGrpcClient, newId, serviceDatabaseUrl } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { cpuPerRequest, load, loadSpread, sized, table, verdict, type LoadResult } from './lib.js';
import { benchLongTail, populate } from './long-tail.js';
import { benchStack } from './stack.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
const LONG_TAIL = Number(process.env.BENCH_LONG_TAIL ?? sized(100_000, 1000));
/** The paths' index of the miss path's baseline (the miss path follows it). */
const MISS_BASELINE = 3;

/** Paths to the public read of `ids`, drawn uniformly at random (every read a distinct-ish id). */
const anyOf = (ids: string[]) => () =>
  `/api/certificate/public/${ids[Math.floor(Math.random() * ids.length)]}`;

/** Mints one certificate and waits until the gateway shows it minted; returns its path and body. */
async function mintedCertificate(stack: TestStack): Promise<{ route: string; body: unknown }> {
  const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  try {
    const res = await certificates.api.mintBatch({
      principal: {
        enterprise_id: newId('enterprise'),
        livemode: true,
        actor_id: newId('apiKey'),
        actor_type: 'api_key',
        scopes: [],
      },
      idempotency_key: 'bench-public-read',
      holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
      items: [
        {
          name: 'Bench Watch',
          image_url: 'https://img.hallmark.test/bench.png',
          metadata_json: JSON.stringify({ artist: 'Atelier Hallmark', category: 'watches' }),
        },
      ],
    });
    const route = `/api/certificate/public/${res.certificates[0]!.id}`;
    for (let i = 0; i <= 300; i++) {
      const r = await fetch(`${stack.gatewayUrl}${route}`);
      const body = r.ok ? ((await r.json()) as { status: string }) : null;
      if (body?.status === 'minted') return { route, body };
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error('the bench certificate was not minted');
  } finally {
    certificates.close();
  }
}

/** The baseline server (public-read-bare.ts) as a process of its own on the service's database. */
async function startBare(stack: TestStack, dbUrl: string): Promise<{ url: string; process: ProcessHandle }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle = await spawnProcess({
    name: 'bare-public-read',
    cmd: process.execPath,
    args: ['--import', 'tsx', path.join(import.meta.dirname, 'public-read-bare.ts')],
    env: {
      BARE_DATABASE_URL: dbUrl,
      BARE_PORT: String(port),
      BARE_PUBLIC_URL: stack.env.HALLMARK_PUBLIC_URL ?? '',
    },
    readyCheck: async () => (await fetch(url).catch(() => null)) !== null,
    logFile: path.join(stack.env.HALLMARK_DATA_DIR!, 'logs', 'bare-public-read.log'),
  });
  return { url, process: handle };
}

/** CPU ms per request summed over rounds, by process. */
class CpuTally {
  private readonly ms = new Map<string, number>();
  private requests = 0;
  add(parts: [string, number][], requests: number): void {
    for (const [name, perRequest] of parts)
      this.ms.set(name, (this.ms.get(name) ?? 0) + perRequest * requests);
    this.requests += requests;
  }
  total(): number {
    return [...this.ms.values()].reduce((a, b) => a + b, 0) / this.requests;
  }
  toString(): string {
    const parts = [...this.ms].map(([name, ms]) => `${name} ${(ms / this.requests).toFixed(2)}`);
    return `${parts.join(', ')}; total ${this.total().toFixed(2)}`;
  }
}

interface Path {
  name: string;
  url: string;
  procs: { name: string; pid: number }[];
  headers?: Record<string, string>;
  expectStatus?: number;
  /** Each request's path (default: the url's). */
  path?: () => string;
  /** The row this one is judged against (default: the first). */
  baseline?: number;
}

export async function benchPublicRead(): Promise<void> {
  const stack = await benchStack({ anvil: true });
  try {
    const { route, body: gatewayBody } = await mintedCertificate(stack);
    const database = `${stack.prefix}_certificates`;
    const db = { url: serviceDatabaseUrl(stack.postgres.url, database), database };
    const bare = await startBare(stack, db.url);
    // A second gateway process with the cache off: every read a miss (the cold path).
    const cold = await startExtraGateway(stack, {
      name: 'gateway-cold',
      env: { HALLMARK_PUBLIC_CACHE_TTL_MS: '0' },
    });
    try {
      const bareUrl = `${bare.url}${route}`;
      const gatewayUrl = `${stack.gatewayUrl}${route}`;
      const bareBody = await (await fetch(bareUrl)).json();
      if (!isDeepStrictEqual(bareBody, gatewayBody)) {
        throw new Error(`the baseline answers otherwise: ${JSON.stringify(bareBody)}`);
      }
      const populating = performance.now();
      const ids = await populate(stack, route.split('/').at(-1)!, LONG_TAIL);
      console.log(
        `long tail: ${ids.length} certificates minted on anvil and recorded, indexed by the chain indexer, ` +
          `in ${((performance.now() - populating) / 1000).toFixed(1)} s`,
      );
      for (const id of [ids[0]!, ids.at(-1)!]) {
        const [b, g] = await Promise.all(
          [bare.url, stack.gatewayUrl].map(async (u) =>
            (await fetch(`${u}/api/certificate/public/${id}`)).json(),
          ),
        );
        if (!isDeepStrictEqual(b, g))
          throw new Error(`the baseline answers otherwise for ${id}: ${JSON.stringify(b)}`);
      }
      const first = await fetch(gatewayUrl);
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      if (!etag) throw new Error('the gateway sent no ETag');
      const pid = (name: string) => ({ name, pid: stack.processes.get(name)!.pid });
      const paths: Path[] = [
        {
          name: 'bare Fastify + pg (baseline)',
          url: bareUrl,
          procs: [{ name: 'bare', pid: bare.process.pid }],
        },
        { name: 'gateway, cache warm', url: gatewayUrl, procs: [pid('gateway'), pid('certificates')] },
        {
          name: 'gateway, If-None-Match → 304',
          url: gatewayUrl,
          procs: [pid('gateway'), pid('certificates')],
          headers: { 'if-none-match': etag },
          expectStatus: 304,
        },
        {
          name: 'bare Fastify + pg, distinct ids (baseline of the miss path)',
          url: `${bare.url}/`,
          procs: [{ name: 'bare', pid: bare.process.pid }],
          path: anyOf(ids),
        },
        {
          name: 'gateway, cache off, distinct ids (the miss path)',
          url: `${cold.url}/`,
          procs: [{ name: 'gateway', pid: cold.process.pid }, pid('certificates')],
          path: anyOf(ids),
          baseline: MISS_BASELINE,
        },
      ];
      const run = (p: Path, name: string, o: { connections?: number; seconds?: number } = {}) =>
        loadSpread(name, p.url, { ...o, headers: p.headers, expectStatus: p.expectStatus, path: p.path });

      // Warm every path (JIT, connection pools, PostgreSQL caches and prepared statements).
      for (const p of paths) await run(p, 'warm-up', { seconds: 2 });
      const sequential: LoadResult[] = [];
      for (const p of [paths[0]!, paths[1]!, paths[MISS_BASELINE]!, paths[MISS_BASELINE + 1]!])
        sequential.push(await run(p, `one connection: ${p.name}`, { connections: 1, seconds: 2 }));

      const rows: LoadResult[] = [];
      const ratios: number[][] = paths.map(() => []);
      const cpu = paths.map(() => new CpuTally());
      const warm = { hits: 0, count: 0 };
      for (let round = 1; round <= ROUNDS; round++) {
        const results: LoadResult[] = [];
        for (const [i, p] of paths.entries()) {
          const { result, parts } = await cpuPerRequest(
            p.procs,
            db,
            () => run(p, `round ${round}: ${p.name}`),
            (r) => r.count!,
          );
          cpu[i]!.add(parts, result.count!);
          results.push(result);
          if (i === 1) {
            warm.hits += result.hits ?? 0;
            warm.count += result.count!;
          }
        }
        rows.push(...results);
        for (const [i, r] of results.entries())
          ratios[i]!.push(r.rps / results[paths[i]!.baseline ?? 0]!.rps);
      }
      const limited = await load('gateway, one client IP (429s by design)', gatewayUrl, { seconds: 3 });
      table([...sequential, ...rows, limited], rows[0]!);

      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const unintended = rows.reduce((n, r) => n + r.non2xx, 0);
      console.log('');
      for (const [i, p] of paths.entries()) {
        if (i === 0 || i === MISS_BASELINE) continue;
        const m = median(ratios[i]!);
        const goal =
          i === 1
            ? ` (goal ≥ 1.0×: ${verdict(m >= 1)})`
            : i === MISS_BASELINE + 1
              ? ` (the miss path; goal ≥ 0.5×: ${verdict(m >= 0.5)})`
              : '';
        console.log(
          `${p.name} ÷ ${paths[p.baseline ?? 0]!.name}, per round: ${ratios[i]!.map((r) => r.toFixed(2)).join(', ')}; ` +
            `median ${m.toFixed(2)}×${goal}`,
        );
      }
      console.log(
        `cache hit rate, warm rounds: ${((100 * warm.hits) / warm.count).toFixed(2)}% of ${warm.count} reads ` +
          `(X-Cache: hit; the entry's TTL is 10 s, so it is refilled about once per 10 s)`,
      );
      if (unintended > 0) {
        console.log(`!!! ${unintended} unexpected statuses in the measured rounds (see non2xx)`);
        process.exitCode = 1;
      }
      const [seqBare, seqWarm, seqBareDistinct, seqCold] = sequential;
      console.log(
        `one connection, p50: bare ${seqBare!.p50.toFixed(2)} ms, gateway warm ${seqWarm!.p50.toFixed(2)} ms; ` +
          `distinct ids: bare ${seqBareDistinct!.p50.toFixed(2)} ms, gateway cold ${seqCold!.p50.toFixed(2)} ms ` +
          `→ the gRPC hop adds ${(seqCold!.p50 - seqBareDistinct!.p50).toFixed(2)} ms`,
      );
      for (const [i, p] of paths.entries()) console.log(`CPU ms per request, ${p.name}: ${cpu[i]}`);
      console.log(
        `→ where CPU is the limit, the ratio tends to: warm ${(cpu[0]!.total() / cpu[1]!.total()).toFixed(2)}×, ` +
          `304 ${(cpu[0]!.total() / cpu[2]!.total()).toFixed(2)}×, ` +
          `cold ${(cpu[MISS_BASELINE]!.total() / cpu[MISS_BASELINE + 1]!.total()).toFixed(2)}× ` +
          `(the baseline's CPU per request ÷ the path's)`,
      );
      console.log(
        `one client IP on the gateway: ${limited.non2xx} of its requests refused with 429 ` +
          `(rate group public: 300 per minute per IP; the limiter runs before the cache)`,
      );
      console.log(
        `load average after the single-certificate rows: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
      );

      console.log('\n--- the long tail ---');
      await benchLongTail({
        ids,
        db,
        rounds: ROUNDS,
        sides: [
          {
            name: 'bare Fastify + pg (baseline)',
            base: bare.url,
            route: '/api/certificate/public/',
            procs: [{ name: 'bare', pid: bare.process.pid }],
          },
          {
            name: 'gateway public read, cache on',
            base: stack.gatewayUrl,
            route: '/api/certificate/public/',
            procs: [pid('gateway'), pid('certificates')],
          },
          {
            name: 'gateway verification JSON',
            base: stack.gatewayUrl,
            route: '/api/certificate/verify/',
            procs: [pid('gateway'), pid('certificates')],
            perAddress: 50,
          },
        ],
      });
      console.log(
        `load average when measured: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
      );
    } finally {
      await cold.stop();
      await bare.process.stop();
    }
  } finally {
    await stack.close();
  }
}
