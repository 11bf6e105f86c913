// The one way a service process is assembled, so every service has the same life cycle:
// open its database (migrations applied), connect the bus, start the outbox relay, build
// its handlers and workers, serve gRPC; on SIGTERM/SIGINT stop taking work, drain, close.
import type { Logger } from 'pino';
import { connectBus, type Bus } from './bus.js';
import { busSettings } from './streams.js';
import { openDatabase, type Pool } from './db.js';
import { startGrpcServer, type RunningGrpcServer, type ServiceBinding } from './grpc/server.js';
import { createLogger } from './log.js';
import {
  initMetrics,
  metricsPortFor,
  reportSharedWhile,
  observePool,
  startMetricsServer,
  type MetricsServer,
} from './metrics.js';
import { OutboxRelay } from './outbox.js';
import { guardProcess } from './process-guard.js';
import { IntervalWorker } from './interval-worker.js';
import { kitRetentions, retentionsFrom, retentionWorker, type RetentionRule } from './retention.js';
import { startTracing, stopTracing } from './telemetry.js';
import { startReadiness, type Readiness } from './readiness.js';
import { loadConfig, opsEnv } from './config.js';
import { z } from 'zod';

export interface ServiceDeps {
  pool: Pool;
  bus: Bus;
  log: Logger;
}

export interface ServiceParts {
  services: ServiceBinding[];
  /** Background workers (consumers, sweepers); started after gRPC is up. */
  workers?: { start(): Promise<void>; stop(): Promise<void> }[];
}

export interface ServiceOptions {
  name: string;
  address: string;
  databaseServerUrl: string;
  natsUrl: string;
  /** Database name prefix (default `hallmark`): the database is `<prefix>_<name>`. */
  databasePrefix?: string;
  logLevel?: string;
  migrationsDirs: string[];
  protoFiles: string[];
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** Port of `GET /metrics` (0: any free one); default from the environment (`metricsPortFor`), unset: none. */
  metricsPort?: number;
  /** The service's tables that grow with traffic, swept by age with the kit's own (retention.ts). */
  retention?: RetentionRule[];
  build(deps: ServiceDeps): Promise<ServiceParts> | ServiceParts;
}

export interface RunningService extends ServiceDeps {
  grpc: RunningGrpcServer;
  metrics?: MetricsServer;
  readiness: Readiness;
  stop(): Promise<void>;
}

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const ops = loadConfig(z.object(opsEnv));
  // Settled before anything starts: a bad HALLMARK_RETENTION_<TABLE>_DAYS refuses the start.
  const retentions = retentionsFrom(opts.retention ?? []);
  const log = createLogger(opts.name, opts.logLevel);
  if (await startTracing(opts.name)) log.info('tracing: exporting spans by OTLP/HTTP');
  initMetrics(opts.name);
  const database = `${opts.databasePrefix ?? 'hallmark'}_${opts.name}`;
  const pool = await openDatabase({
    serverUrl: opts.databaseServerUrl,
    database,
    migrationsDirs: opts.migrationsDirs,
    max: Math.min(opts.poolSize ?? 10, ops.HALLMARK_DB_POOL_MAX ?? Infinity),
    migrate: ops.HALLMARK_MIGRATE_AT_START,
  });
  const unobservePool = observePool(pool, database);
  const bus = await connectBus(opts.natsUrl, opts.name);
  const relay = new OutboxRelay({ pool, js: bus.js, log });
  await relay.start();
  const streams = busSettings();
  const retention = retentionWorker(pool, log, [
    ...kitRetentions({
      outboxMs: ops.HALLMARK_OUTBOX_RETENTION_HOURS * 3600_000,
      streamMaxAgeMs: streams.maxAgeMs,
      dlqMaxAgeMs: streams.dlqMaxAgeMs,
    }),
    ...retentions,
  ]);
  await retention.start();
  const metricsLock = metricsLockOf(pool, log);
  reportSharedWhile(() => metricsLock.holding);
  await metricsLock.start();
  const parts = await opts.build({ pool, bus, log });
  const grpc = await startGrpcServer({
    name: opts.name,
    address: opts.address,
    services: parts.services,
    log,
    protoFiles: opts.protoFiles,
    maxConnectionAgeMs: ops.HALLMARK_GRPC_MAX_CONNECTION_AGE_MS,
  });
  for (const w of parts.workers ?? []) await w.start();
  const metricsPort = opts.metricsPort ?? metricsPortFor(opts.name);
  const metrics = metricsPort === undefined ? undefined : await startMetricsServer(metricsPort);
  if (metrics) log.info({ url: metrics.url }, 'metrics listening');
  const readiness = startReadiness({
    pool,
    bus,
    health: grpc.health,
    services: grpc.healthServices,
    log,
    intervalMs: ops.HALLMARK_READINESS_INTERVAL_MS,
  });

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down');
      readiness.stop();
      await grpc.shutdown();
      for (const w of parts.workers ?? [])
        await w.stop().catch((err) => log.warn({ err }, 'worker stop failed'));
      await relay.stop();
      await retention.stop();
      await metricsLock.stop();
      reportSharedWhile(() => true);
      await bus.close().catch(() => undefined);
      unobservePool();
      await pool.end();
      await metrics?.close();
      await stopTracing();
      log.info('stopped');
    })());
  return { pool, bus, log, grpc, metrics, readiness, stop };
}

/** For main.ts: start, stop on SIGTERM/SIGINT, exit non-zero on a start failure. */
export async function runServiceMain(opts: ServiceOptions): Promise<void> {
  guardProcess(createLogger(opts.name, opts.logLevel));
  try {
    const svc = await startService(opts);
    const onSignal = () => void svc.stop().then(() => process.exit(0));
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  } catch (err) {
    createLogger(opts.name).fatal({ err }, 'failed to start');
    process.exit(1);
  }
}

/**
 * The replica that reports the shared gauges (row counts, consumer and relayer state: the same
 * value from every replica): the one holding the database's `metrics` advisory lock, on a
 * connection of its own. Every replica tries each 15 s, so when the holder stops or loses its
 * connection another reports from its next try on.
 */
export function metricsLockOf(pool: Pool, log: Logger, intervalMs = 15_000): IntervalWorker {
  return new IntervalWorker(
    { name: 'metrics lock', intervalMs, log, pool, lockKey: 'hallmark-metrics' },
    async () => undefined,
  );
}
