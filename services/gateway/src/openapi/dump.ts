// The OpenAPI document exactly as the gateway serves it at /openapi.json, built in-process
// without any service running: the app is assembled with its real plugins and routes, its
// gRPC clients are created (they connect lazily) and never called.
import { buildApp } from '../app.js';
import { KeyVerifier } from '../auth/key-verifier.js';
import { createSessionVerifier } from '../auth/session.js';
import { UsageRecorder } from '../auth/usage-recorder.js';
import { createClients } from '../clients.js';
import { loadGatewayConfig } from '../config.js';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadGatewayConfig({
    ...process.env,
    HALLMARK_JWT_SECRET: 'x'.repeat(32),
    REDIS_URL: undefined,
  });
  const clients = createClients(config);
  const log = { info() {}, warn() {}, error() {} } as never;
  const app = await buildApp({
    config,
    clients,
    verifier: new KeyVerifier(clients.keys, config.HALLMARK_KEY_CACHE_TTL_MS),
    verifySession: createSessionVerifier({ secret: config.HALLMARK_JWT_SECRET, maxTtlSec: 3600 }),
    usage: new UsageRecorder(clients.keys, log),
    logLevel: 'silent',
  });
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
    clients.close();
  }
}
