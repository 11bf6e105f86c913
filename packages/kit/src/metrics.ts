// Prometheus metrics of one process: one registry (prom-client) with Node's default process
// metrics, get-or-create helpers so any module can add a series without wiring, and a small
// HTTP server on the process's own metrics port (never the gateway's public port). Names
// follow Prometheus conventions: `hallmark_` prefix, base units (`_seconds`, `_bytes`,
// `_wei`), `_total` on counters. Gauges whose value lives elsewhere (a pool, a table, a
// consumer) are read at scrape time through `collect`, so nothing polls between scrapes.
import http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import type { Pool } from './db.js';

export const registry = new Registry();
let defaultsOn = false;

/** Request-latency buckets (seconds): 2.5 ms to 30 s. */
export const LATENCY_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Labels<L extends string> = readonly L[];

/**
 * A counter by name, created on first use (the same object after): the way other modules add
 * their own, e.g. `counter('hallmark_events_dead_lettered_total', '…', ['consumer']).inc({…})`.
 * `known`: the label sets it can take, each a series at 0 from now, so that a first event is
 * an increase (a series born at 1 is invisible to `increase()` and the alerts on it). A
 * counter without labels is at 0 from its creation anyway. Create such a counter when the
 * process starts (a module constant, or the constructor of what counts), not at first use.
 */
export function counter<L extends string = string>(
  name: string,
  help: string,
  labelNames: Labels<L> = [],
  extra: Partial<CounterConfiguration<L>> & { known?: readonly Partial<Record<L, string>>[] } = {},
): Counter<L> {
  const { known = [], ...config } = extra;
  const c =
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter<L>({ name, help, labelNames, registers: [registry], ...config });
  for (const labels of known) c.inc(labels, 0);
  return c;
}

/** A gauge by name, created on first use; `collect` (read at scrape time) only on creation. */
export function gauge<L extends string = string>(
  name: string,
  help: string,
  labelNames: Labels<L> = [],
  extra: Partial<GaugeConfiguration<L>> = {},
): Gauge<L> {
  const found = registry.getSingleMetric(name);
  if (found) return found as Gauge<L>;
  return new Gauge<L>({ name, help, labelNames, registers: [registry], ...extra });
}

/** A histogram by name, created on first use (latency buckets unless given). */
export function histogram<L extends string = string>(
  name: string,
  help: string,
  labelNames: Labels<L> = [],
  extra: Partial<HistogramConfiguration<L>> = {},
): Histogram<L> {
  const found = registry.getSingleMetric(name);
  if (found) return found as Histogram<L>;
  return new Histogram<L>({
    name,
    help,
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
    ...extra,
  });
}

/**
 * Whether this process reports the shared gauges (below) now: true until `reportSharedWhile`
 * says otherwise. A service sets it to "holds the metrics lock of its database" (service.ts).
 */
let reportsShared: () => boolean = () => true;
export function reportSharedWhile(fn: () => boolean): void {
  reportsShared = fn;
}

/**
 * Reads a gauge's value from elsewhere at scrape time: `read` returns one value per label set.
 * Several sources may feed one gauge (e.g. two consumers of one process); a failing read
 * leaves the gauge's other sources and the rest of the scrape intact.
 *
 * `shared`: the value is the same whichever replica reads it (a row count of the service's
 * database, a JetStream consumer, the relayer's chain state). Only the replica holding the
 * metrics lock reports it (the others drop its series), so `sum` across pods counts it once
 * and no replica's scrape adds a query to the database.
 */
const sources = new Map<string, (() => Promise<void>)[]>();
export function gaugeFrom<L extends string>(
  name: string,
  help: string,
  labelNames: Labels<L>,
  read: () => Promise<{ labels: Partial<Record<L, string>>; value: number }[]>,
  opts: { shared?: boolean } = {},
): () => void {
  const list = sources.get(name) ?? [];
  let reported: Partial<Record<L, string>>[] = [];
  const fn = async () => {
    if (opts.shared && !reportsShared()) {
      // An unlabelled gauge has its one series from creation: drop that too.
      for (const labels of labelNames.length === 0 ? [{}] : reported) g.remove(labels);
      reported = [];
      return;
    }
    const values = await read().catch(() => []);
    for (const { labels, value } of values) g.set(labels, value);
    if (values.length > 0) reported = values.map((v) => v.labels);
  };
  list.push(fn);
  sources.set(name, list);
  const g = gauge<L>(name, help, labelNames, {
    async collect() {
      await Promise.all((sources.get(name) ?? []).map((f) => f()));
    },
  });
  return () =>
    sources.set(
      name,
      (sources.get(name) ?? []).filter((f) => f !== fn),
    );
}

/** The process's labels on every series (service name), and Node's default metrics once. */
export function initMetrics(service: string): void {
  registry.setDefaultLabels({ service });
  if (!defaultsOn) {
    defaultsOn = true;
    collectDefaultMetrics({ register: registry, prefix: 'hallmark_' });
  }
}

/**
 * PostgreSQL pool gauges by state, parts of one whole (so `sum` is the pool's size): connections
 * in use and idle, and callers waiting for one (not connections; read alone).
 */
export function observePool(pool: Pool, database: string): () => void {
  return gaugeFrom(
    'hallmark_db_pool_connections',
    'PostgreSQL pool connections by state (in_use, idle), and callers waiting for one (waiting)',
    ['database', 'state'],
    async () => [
      { labels: { database, state: 'in_use' }, value: pool.totalCount - pool.idleCount },
      { labels: { database, state: 'idle' }, value: pool.idleCount },
      { labels: { database, state: 'waiting' }, value: pool.waitingCount },
    ],
  );
}

export interface MetricsServer {
  port: number;
  /** The address it is bound to. */
  host: string;
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (text exposition format) on its own port, bound to `host`
 * (`HALLMARK_METRICS_HOST`, loopback unless set): the series name the relayer's address and
 * balance and business counts, for the scraper only, never every interface by default.
 */
export async function startMetricsServer(port: number, host = metricsHostFor()): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound, address } = server.address() as AddressInfo;
  // A wildcard bind answers on loopback too; a specific address (a pod's IP) only there.
  const reach = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
  return {
    port: bound,
    host: address,
    url: `http://${isIP(reach) === 6 ? `[${reach}]` : reach}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The address the metrics server binds: `HALLMARK_METRICS_HOST` (the chart sets the pod's IP,
 * which the NetworkPolicy opens to the scraper only), else loopback (`pnpm start`, tests).
 */
export function metricsHostFor(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.HALLMARK_METRICS_HOST;
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (isIP(raw) === 0) throw new Error(`invalid metrics host (HALLMARK_METRICS_HOST): ${raw.slice(0, 64)}`);
  return raw;
}

/**
 * The metrics port of a process: `HALLMARK_METRICS_PORT` (a pod's one port) wins, else
 * `HALLMARK_<NAME>_METRICS_PORT` (the dev stack runs every process on one host); unset: no
 * metrics server.
 */
export function metricsPortFor(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.HALLMARK_METRICS_PORT ?? env[`HALLMARK_${name.toUpperCase()}_METRICS_PORT`];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid metrics port for ${name}: ${raw}`);
  return port;
}
