// Extra processes on a running test stack (same NATS, database prefix and secrets), as more
// replicas would run in a cluster: a second gateway, or another replica of a backend, for
// tests of what every replica must see and of load spreading over replicas.
import { freePort, REPO_ROOT, serviceEntryArgs, spawnProcess, type ProcessHandle } from '@hallmark/devstack';
import { createHealthProbe, SERVICE_ADDR_ENV, type ServiceName } from '@hallmark/kit';
import path from 'node:path';
import type { TestStack } from './index.js';

export interface ExtraGateway {
  url: string;
  /** Its own `GET /metrics`. */
  metricsUrl: string;
  process: ProcessHandle;
  stop(): Promise<void>;
}

export interface ExtraBackend {
  /** Its gRPC address, `127.0.0.1:port`. */
  address: string;
  metricsUrl: string;
  process: ProcessHandle;
  stop(): Promise<void>;
}

interface ExtraOptions {
  name?: string;
  env?: Record<string, string>;
  /** Variables of the stack's env this process runs without (e.g. REDIS_URL). */
  unset?: string[];
}

async function startExtra(
  stack: TestStack,
  service: ServiceName | 'gateway',
  opts: ExtraOptions,
  own: Record<string, string>,
  readyCheck: () => Promise<boolean | undefined>,
): Promise<{ process: ProcessHandle; metricsUrl: string }> {
  const name = opts.name ?? `${service}2`;
  // Its own metrics port: the stack's process of this service already holds the configured one.
  const metricsPort = await freePort();
  const env: Record<string, string> = { ...stack.env };
  for (const variable of opts.unset ?? []) delete env[variable];
  const handle = await spawnProcess({
    name,
    cmd: process.execPath,
    args: serviceEntryArgs(service),
    cwd: REPO_ROOT,
    env: {
      ...env,
      [`HALLMARK_${service.toUpperCase()}_METRICS_PORT`]: String(metricsPort),
      ...own,
      ...opts.env,
    },
    readyCheck,
    readyTimeoutMs: 60_000,
    logFile: path.join(stack.env.HALLMARK_DATA_DIR!, 'logs', `${name}.log`),
  });
  return { process: handle, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

export async function startExtraGateway(stack: TestStack, opts: ExtraOptions = {}): Promise<ExtraGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = await startExtra(
    stack,
    'gateway',
    opts,
    { HALLMARK_PORT: String(port) },
    async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok,
  );
  return { url, ...started, stop: () => started.process.stop() };
}

/**
 * Another replica of a backend: its own gRPC port, no Restate endpoint of its own (the stack's
 * process is the registered deployment). Its background workers run beside the first process's.
 */
export async function startExtraBackend(
  stack: TestStack,
  service: ServiceName,
  opts: ExtraOptions = {},
): Promise<ExtraBackend> {
  const address = `127.0.0.1:${await freePort()}`;
  const own: Record<string, string> = { [SERVICE_ADDR_ENV[service]]: address };
  const restatePort = `HALLMARK_${service.toUpperCase()}_RESTATE_PORT`;
  if (stack.env[restatePort]) {
    own[restatePort] = String(await freePort());
    own[`HALLMARK_${service.toUpperCase()}_RESTATE_REGISTER`] = 'false';
  }
  const started = await startExtra(stack, service, opts, own, async () => {
    const probe = createHealthProbe(address);
    try {
      return (await probe.check(500)) === 'SERVING';
    } finally {
      probe.close();
    }
  });
  return { address, ...started, stop: () => started.process.stop() };
}
