// A second gateway process on the same stack (same services, NATS, database prefix), as
// another replica would run: for tests of what every replica must see.
import { freePort, REPO_ROOT, serviceEntryArgs, spawnProcess, type ProcessHandle } from '@hallmark/devstack';
import path from 'node:path';
import type { TestStack } from './index.js';

export interface ExtraGateway {
  url: string;
  process: ProcessHandle;
  stop(): Promise<void>;
}

export async function startExtraGateway(
  stack: TestStack,
  /** `unset`: variables of the stack's env this gateway runs without (e.g. REDIS_URL). */
  opts: { name?: string; env?: Record<string, string>; unset?: string[] } = {},
): Promise<ExtraGateway> {
  const name = opts.name ?? 'gateway2';
  const port = await freePort();
  // Its own metrics port too: the stack's gateway already holds HALLMARK_GATEWAY_METRICS_PORT.
  const metricsPort = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = { ...stack.env };
  for (const name of opts.unset ?? []) delete env[name];
  const handle = await spawnProcess({
    name,
    cmd: process.execPath,
    args: serviceEntryArgs('gateway'),
    cwd: REPO_ROOT,
    env: {
      ...env,
      HALLMARK_PORT: String(port),
      HALLMARK_GATEWAY_METRICS_PORT: String(metricsPort),
      ...opts.env,
    },
    readyCheck: async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok,
    readyTimeoutMs: 60_000,
    logFile: path.join(stack.env.HALLMARK_DATA_DIR!, 'logs', `${name}.log`),
  });
  return { url, process: handle, stop: () => handle.stop() };
}
