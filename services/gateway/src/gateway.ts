// Assembles a running gateway from config: clients, verifiers, the NATS invalidation
// subscription, the public cache and its certificate-event consumer, Redis when configured,
// the app. main.ts and the tests both use this.
import {
  createLogger,
  initMetrics,
  metricsPortFor,
  natsServers,
  startMetricsServer,
  startTracing,
  stopTracing,
  type MetricsServer,
} from '@hallmark/kit';
import { connect } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { subscribeKeyInvalidation } from './auth/invalidation.js';
import { KeyVerifier } from './auth/key-verifier.js';
import { createSessionVerifier } from './auth/session.js';
import { UsageRecorder } from './auth/usage-recorder.js';
import { buildApp, publicCacheOf, type App } from './app.js';
import { startCacheInvalidation } from './cache/invalidation.js';
import { createClients } from './clients.js';
import type { Config } from './config.js';

export interface Gateway {
  app: App;
  url: string;
  /** `GET /metrics` on its own port (HALLMARK_METRICS_PORT / HALLMARK_GATEWAY_METRICS_PORT), never the public one. */
  metrics?: MetricsServer;
  close(): Promise<void>;
}

export interface GatewayOptions {
  logLevel?: string;
  /** Extra routes (benchmarks mount trivial handlers to measure the gateway's own cost). */
  extraRoutes?: (app: FastifyInstance) => void;
}

export async function startGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const log = createLogger('gateway', opts.logLevel ?? config.LOG_LEVEL);
  if (await startTracing('gateway')) log.info('tracing: exporting spans by OTLP/HTTP');
  initMetrics('gateway');
  const clients = createClients(config);
  const verifier = new KeyVerifier(clients.keys, config.HALLMARK_KEY_CACHE_TTL_MS);
  const usage = new UsageRecorder(clients.keys, log);
  usage.start();
  const nc = await connect({
    servers: natsServers(config.NATS_URL),
    name: 'gateway',
    maxReconnectAttempts: -1,
  });
  const sub = subscribeKeyInvalidation(nc, verifier, log);
  const publicCache = publicCacheOf(config);
  const invalidation = startCacheInvalidation(nc, publicCache, log);
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, {
        maxRetriesPerRequest: 2,
        enableOfflineQueue: false,
        // A Redis that hangs fails the call fast; the rate limits fall back to this process.
        commandTimeout: 500,
        // A keyed request consumes three or four rate-limit windows at once: sent together
        // (one write, one read), not as a round trip each.
        enableAutoPipelining: true,
      })
    : undefined;
  const verifySession = createSessionVerifier({
    secret: config.HALLMARK_JWT_SECRET,
    previousSecret: config.HALLMARK_JWT_PREVIOUS_SECRET,
    jwksUrl: config.HALLMARK_JWKS_URL,
    maxTtlSec: config.HALLMARK_SESSION_MAX_TTL_SEC,
  });
  const app = await buildApp({
    config,
    clients,
    verifier,
    verifySession,
    usage,
    redis,
    publicCache,
    logLevel: opts.logLevel,
    extraRoutes: opts.extraRoutes,
  });
  const address = await app.listen({ port: config.HALLMARK_PORT, host: config.HALLMARK_HOST });
  const metricsPort = metricsPortFor('gateway');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === config.HALLMARK_PORT)
    throw new Error('the metrics port must not be the public port (HALLMARK_PORT)');
  const metrics = metricsPort === undefined ? undefined : await startMetricsServer(metricsPort);
  if (metrics) log.info({ url: metrics.url }, 'metrics listening');
  return {
    app,
    url: address,
    metrics,
    async close() {
      await app.close(); // stops accepting, finishes in-flight requests
      await metrics?.close();
      await usage.stop();
      sub.unsubscribe();
      await invalidation.stop();
      await nc.drain();
      redis?.disconnect();
      clients.close();
      await stopTracing();
    },
  };
}
