// NATS with JetStream: reuse a server that answers (NATS_URL, or a local one on 4222 that
// has JetStream on), else run Debian's nats-server with its store under <dataDir>/nats.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { natsServerBinary } from './binaries.js';
import { spawnProcess } from './process.js';
import { freePort, readGreeting, waitFor } from './wait.js';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export interface NatsOptions {
  dataDir: string;
  /** NATS_URL. When given it must answer; it is used as is. */
  url?: string;
  /** Ignore NATS_URL and the default server and always spawn our own (tests use this). */
  forceSpawn?: boolean;
  /** How long a given `url` may take to answer (default 10 s). */
  urlWaitMs?: number;
  /** Port for the spawned server (default: a free one). */
  port?: number;
  logFile?: string;
}

export interface NatsHandle {
  url: string;
  spawned: boolean;
  /** The server process when this stack spawned it (e.g. for a bench's CPU tally). */
  pid?: number;
  stop(): Promise<void>;
}

export interface NatsInfo {
  server_id?: string;
  version?: string;
  jetstream?: boolean;
  [key: string]: unknown;
}

/** Connects to the first server of a NATS URL list and parses its `INFO {...}` greeting. */
export async function natsInfo(url: string, timeoutMs = 1500): Promise<NatsInfo> {
  const first = url.split(',')[0]?.trim() ?? url;
  const parsed = new URL(first.includes('://') ? first : `nats://${first}`);
  const line = await readGreeting(parsed.hostname || '127.0.0.1', Number(parsed.port || 4222), timeoutMs);
  if (!line.startsWith('INFO '))
    throw new Error(`${first} does not speak NATS (greeting: ${line.slice(0, 60)})`);
  return JSON.parse(line.slice(5)) as NatsInfo;
}

export async function ensureNats(opts: NatsOptions): Promise<NatsHandle> {
  const noop = async (): Promise<void> => undefined;
  if (!opts.forceSpawn && opts.url) {
    const url = opts.url;
    await waitFor(() => natsInfo(url), {
      what: `NATS at NATS_URL (${url})`,
      timeoutMs: opts.urlWaitMs ?? 10_000,
      intervalMs: 250,
    });
    return { url, spawned: false, stop: noop };
  }
  if (!opts.forceSpawn) {
    // A server without JetStream would answer but break every stream the services create.
    const info = await natsInfo(DEFAULT_NATS_URL).catch(() => undefined);
    if (info?.jetstream) return { url: DEFAULT_NATS_URL, spawned: false, stop: noop };
  }

  const bin = await natsServerBinary();
  const port = opts.port ?? (await freePort());
  const storeDir = resolve(opts.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const url = `nats://127.0.0.1:${port}`;
  const proc = await spawnProcess({
    name: 'nats',
    cmd: bin,
    args: ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, '-n', 'hallmark-dev'],
    readyCheck: async () => (await natsInfo(url, 1000)).jetstream === true,
    readyTimeoutMs: 20_000,
    pidFile: join(opts.dataDir, 'nats.pid'),
    ports: [port],
    ...(opts.logFile ? { logFile: opts.logFile } : {}),
  });
  return { url, spawned: true, pid: proc.pid, stop: () => proc.stop() };
}
