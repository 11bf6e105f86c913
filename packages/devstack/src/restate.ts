// Restate (the durable workflow engine) from the `@restatedev/restate-server` npm package.
// Ingress moves to 9080 because the gateway owns 8080; everything binds to 127.0.0.1.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { restateServerBinary } from './binaries.js';
import { spawnProcess } from './process.js';

export interface RestateOptions {
  dataDir: string;
  ingressPort?: number;
  adminPort?: number;
  /** Node-to-node (fabric) port; unused by a single node but bound all the same. */
  nodePort?: number;
  logFile?: string;
}

export interface RestateHandle {
  ingressUrl: string;
  /** Admin API and operator UI (`<adminUrl>/ui`). */
  adminUrl: string;
  /** The server process (e.g. for a test that kills it). */
  pid: number;
  exited: Promise<unknown>;
  stop(): Promise<void>;
  /** Starts the server again on the same ports and base dir (after it stopped or was killed). */
  restart(): Promise<RestateHandle>;
}

export async function startRestate(opts: RestateOptions): Promise<RestateHandle> {
  const { ingressPort = 9080, adminPort = 9070, nodePort = 5122 } = opts;
  const baseDir = resolve(opts.dataDir, 'restate');
  mkdirSync(baseDir, { recursive: true });
  const ingressUrl = `http://127.0.0.1:${ingressPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;

  const proc = await spawnProcess({
    name: 'restate',
    cmd: restateServerBinary(),
    args: ['--base-dir', baseDir, '--no-logo'],
    cwd: baseDir,
    env: {
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${nodePort}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${nodePort}/`,
      // The stored cluster metadata is keyed by node name, which defaults to the hostname;
      // a fixed name keeps the data dir valid when the machine or container is renamed.
      RESTATE_NODE_NAME: 'hallmark-dev',
      // TCP only: the unix sockets it would create under base-dir break on long paths.
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_DISABLE_TELEMETRY: 'true',
      // One line per event, no colours: the output is prefixed or goes to a file.
      RESTATE_LOG_FORMAT: 'compact',
      RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
      // Its INFO level prints dozens of lines per start and stop; keep warnings unless asked.
      RESTATE_LOG_FILTER: process.env.RESTATE_LOG_FILTER ?? 'warn',
      // Optional request signing (`pnpm start`): the server signs every call to the services'
      // endpoints with this private key; the services accept only the public keys in
      // HALLMARK_RESTATE_IDENTITY_KEYS (kit restate.ts).
      ...(process.env.HALLMARK_RESTATE_IDENTITY_PRIVATE_KEY_FILE
        ? {
            RESTATE_REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE:
              process.env.HALLMARK_RESTATE_IDENTITY_PRIVATE_KEY_FILE,
          }
        : {}),
    },
    readyCheck: async () =>
      (await fetch(`${adminUrl}/health`, { signal: AbortSignal.timeout(2000) })).status === 200,
    readyTimeoutMs: 60_000,
    pidFile: join(opts.dataDir, 'restate.pid'),
    ports: [ingressPort, adminPort, nodePort],
    ...(opts.logFile ? { logFile: opts.logFile } : {}),
  });
  return {
    ingressUrl,
    adminUrl,
    pid: proc.pid,
    exited: proc.exited,
    stop: () => proc.stop(),
    restart: () => startRestate({ ...opts, ingressPort, adminPort, nodePort }),
  };
}

/** The kit's registration, under the name the dev stack's callers know. */
export { registerRestateDeployment as registerDeployment } from '@hallmark/kit';
