// Shared bench helpers: load runs with a fixed shape (autocannon, or a generator spreading
// its connections over client addresses), CPU per request by process, and ratio printing.
// Every bench measures a baseline in the same run and prints ratios, never absolute goals
// alone, so results compare across machines.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Client } from 'undici';

/**
 * Smoke mode (`pnpm bench --smoke`, or HALLMARK_BENCH_SMOKE=1): every bench runs end to end
 * with small counts and short loads and judges no goal, so CI proves each one still runs
 * (test/bench/smoke.test.ts) without measuring anything on a shared machine.
 */
export const SMOKE = process.env.HALLMARK_BENCH_SMOKE === '1';

/** A count or duration: the measured run's, or the smoke run's. */
export const sized = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

/** A goal's verdict as the benches print it; in smoke mode no goal is judged. */
export const verdict = (met: boolean, missed = 'NOT met'): string =>
  SMOKE ? 'not judged (smoke)' : met ? 'met' : missed;

/** Seconds a load runs: as the bench asks, else BENCH_SECONDS, else `full`; 1 in smoke mode. */
export const loadSeconds = (asked: number | undefined, full = 5): number =>
  SMOKE ? 1 : (asked ?? Number(process.env.BENCH_SECONDS ?? full));

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered, where the generator counts them. */
  count?: number;
  /** Answers with `X-Cache: hit` (the gateway's public cache), where the generator counts them. */
  hits?: number;
}

export async function load(
  name: string,
  url: string,
  opts: {
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    connections?: number;
    seconds?: number;
  } = {},
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? 32,
    duration: loadSeconds(opts.seconds),
  });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

/**
 * `load` over many API keys: request i carries `keys[i % keys.length]`, so no key comes near
 * its own burst or minute limit and the limiter runs for every request without refusing.
 */
export async function loadWithKeys(
  name: string,
  url: string,
  keys: string[],
  opts: { connections?: number; seconds?: number } = {},
): Promise<LoadResult> {
  let i = 0;
  const r = await autocannon({
    url,
    connections: opts.connections ?? 32,
    duration: loadSeconds(opts.seconds),
    requests: [
      {
        method: 'GET',
        setupRequest(req) {
          return { ...req, headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` } };
        },
      },
    ],
  });
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
    count: r.requests.total,
  };
}

/**
 * Rows whose non-2xx answers were not intended (every row but those named in `intended`),
 * printed loudly; the caller's ratios from them are not measurements. Sets a failing exit code.
 */
export function unintendedNon2xx(rows: LoadResult[], intended: string[] = []): LoadResult[] {
  const bad = rows.filter((r) => r.non2xx > 0 && !intended.includes(r.name));
  for (const r of bad) {
    console.log(
      `!!! FAILED: "${r.name}" answered ${r.non2xx} non-2xx it should not have: its ratio is not a measurement`,
    );
  }
  if (bad.length > 0) process.exitCode = 1;
  return bad;
}

export function table(rows: LoadResult[], baseline: LoadResult): void {
  console.log(
    `\n${'case'.padEnd(56)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non2xx'.padStart(7)} ${'× baseline'.padStart(11)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(56)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${String(r.non2xx).padStart(7)} ${(r.rps / baseline.rps).toFixed(3).padStart(11)}`,
    );
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

let addressesUsed = 0;

/**
 * A loopback source address never handed out before in this process (127.100.0.1 onwards):
 * all of 127.0.0.0/8 reaches the local servers, and each address is a distinct client IP.
 */
function freshLoopbackAddress(): string {
  let n: number;
  do n = ++addressesUsed;
  while ((n & 255) === 0 || (n & 255) === 255);
  return `127.${100 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * Closed-loop load like `load`, `connections` keep-alive connections each sending its next
 * request when the previous answer is read, but every connection moves to a fresh client
 * address after `perAddress` requests. A server that limits per client IP (the gateway's
 * public group: 300 a minute) then measures its route, not its limiter, while every request
 * still runs through the limiter. Both sides of a comparison should use the same generator.
 */
export async function loadSpread(
  name: string,
  url: string,
  opts: {
    connections?: number;
    seconds?: number;
    perAddress?: number;
    headers?: Record<string, string>;
    /** The status every answer should have (default: any 2xx); others count as non2xx. */
    expectStatus?: number;
    /** Each request's path (default: the url's): e.g. a draw from a distribution of ids. */
    path?: () => string;
  } = {},
): Promise<LoadResult> {
  const target = new URL(url);
  const connections = opts.connections ?? 32;
  const perAddress = opts.perAddress ?? 250;
  const latencies: number[] = [];
  let non2xx = 0;
  let hits = 0;
  const ok = (status: number) =>
    opts.expectStatus === undefined ? status >= 200 && status <= 299 : status === opts.expectStatus;
  const t0 = performance.now();
  const end = t0 + 1000 * loadSeconds(opts.seconds);
  const worker = async () => {
    while (performance.now() < end) {
      const client = new Client(target.origin, { localAddress: freshLoopbackAddress(), pipelining: 1 });
      try {
        for (let i = 0; i < perAddress && performance.now() < end; i++) {
          const t = performance.now();
          const res = await client.request({
            method: 'GET',
            path: opts.path ? opts.path() : target.pathname + target.search,
            headers: opts.headers,
          });
          await res.body.dump();
          latencies.push(performance.now() - t);
          if (!ok(res.statusCode)) non2xx++;
          if (res.headers['x-cache'] === 'hit') hits++;
        }
      } finally {
        await client.close();
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    non2xx,
    count: latencies.length,
    hits,
  };
}

/** CPU milliseconds (user + system) a process has used so far; Linux /proc, clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * PostgreSQL backends serving `database` now (`dbUrl` may name any database of the server, or
 * be a connected client to ask through); `{ prefix }`: every database whose name starts with
 * it (a stack's databases).
 */
export async function backendsOf(
  dbUrl: string | pg.Client,
  database: string | { prefix: string },
): Promise<number[]> {
  const db = typeof dbUrl === 'string' ? new pg.Client({ connectionString: dbUrl }) : dbUrl;
  if (typeof dbUrl === 'string') await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>(
      typeof database === 'string'
        ? 'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()'
        : 'SELECT pid FROM pg_stat_activity WHERE starts_with(datname, $1) AND pid <> pg_backend_pid()',
      [typeof database === 'string' ? database : database.prefix],
    );
    return rows.map((r) => r.pid);
  } finally {
    if (typeof dbUrl === 'string') await db.end();
  }
}

/**
 * CPU ms per request that each named process, the backends of `database` and this process
 * (the load generator) spent while `run` served `requests()` requests.
 */
export async function cpuPerRequest<T>(
  procs: { name: string; pid: number }[],
  db: { url: string; database: string },
  run: () => Promise<T>,
  requests: (result: T) => number,
): Promise<{ result: T; parts: [string, number][] }> {
  const tally = await cpuTally(procs, db);
  const self = process.cpuUsage();
  const result = await run();
  const selfUs = process.cpuUsage(self);
  const n = requests(result);
  const parts: [string, number][] = (await tally.stop()).map(([name, ms]) => [name, ms / n]);
  parts.push(['load generator', (selfUs.user + selfUs.system) / 1000 / n]);
  return { result, parts };
}

/**
 * CPU ms this process and the backends of each of `databases` (on the server of `dbUrl`) used
 * while `run` ran; backends opened during the run count from zero, any closed during it are
 * missed. The machine's other load moves these less than it moves rates.
 */
export async function cpuDuring<T>(
  dbUrl: string,
  databases: string[],
  run: () => Promise<T>,
): Promise<{ result: T; self: number; pg: number[] }> {
  const backends = () => Promise.all(databases.map((d) => backendsOf(dbUrl, d)));
  const before = new Map((await backends()).flat().map((pid) => [pid, cpuMs(pid)]));
  const self = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(self);
  const pg = (await backends()).map((pids) =>
    pids.reduce((sum, pid) => sum + cpuMs(pid) - (before.get(pid) ?? 0), 0),
  );
  return { result, self: (used.user + used.system) / 1000, pg };
}

/**
 * CPU ms that each named process and the PostgreSQL backends of `db` spend from now until
 * `stop()`: what a long run (a bulk job) costs per process. Backends opened meanwhile count
 * from zero; any closed meanwhile are missed.
 */
export async function cpuTally(
  procs: { name: string; pid: number }[],
  db: { url: string; database: string | { prefix: string } },
): Promise<{ stop(): Promise<[string, number][]> }> {
  // One connection for the whole run: a long run's end must not need a new one (the shared
  // server may be full of other work's connections by then).
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const before = procs.map((p) => cpuMs(p.pid));
  const pgBefore = new Map((await backendsOf(client, db.database)).map((pid) => [pid, cpuMs(pid)]));
  return {
    async stop() {
      const pgMs = await backendsOf(client, db.database)
        .finally(() => client.end())
        .then((pids) => pids.reduce((sum, pid) => sum + (cpuMs(pid) || 0) - (pgBefore.get(pid) ?? 0), 0));
      const parts: [string, number][] = procs.map((p, i) => [p.name, cpuMs(p.pid) - before[i]!]);
      parts.push(['postgres', pgMs]);
      return parts;
    },
  };
}
