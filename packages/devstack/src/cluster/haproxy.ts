// HAProxy in TCP mode in front of a clustered engine: each listener routes to the members
// whose HTTP health check answers 200 (Patroni's `/primary`, Restate's health endpoints), as
// a production load balancer or Kubernetes Service would. A member marked down has its
// sessions shut, so clients reconnect elsewhere instead of hanging on a dead peer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { debianBinary } from '../binaries.js';
import { spawnProcess, type ProcessHandle } from '../process.js';
import { freePort } from '../wait.js';

export interface Listener {
  name: string;
  /** `OPTIONS /primary`, `GET /health`, … sent to `checkPort` of each server. */
  check: string;
  servers: { name: string; port: number; checkPort: number }[];
}

export interface HaproxyHandle {
  /** Listener name → the port it binds on 127.0.0.1. */
  ports: Record<string, number>;
  proc: ProcessHandle;
  stop(): Promise<void>;
}

export async function startHaproxy(opts: {
  dir: string;
  name: string;
  listeners: Listener[];
  readyCheck: (ports: Record<string, number>) => Promise<unknown>;
}): Promise<HaproxyHandle> {
  const bin = await debianBinary('haproxy', 'haproxy');
  const ports: Record<string, number> = {};
  for (const l of opts.listeners) ports[l.name] = await freePort();
  const config = join(opts.dir, `${opts.name}.cfg`);
  const lines = [
    'global',
    '  maxconn 4000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
  ];
  for (const l of opts.listeners) {
    lines.push(
      `listen ${l.name}`,
      `  bind 127.0.0.1:${ports[l.name]}`,
      `  option httpchk ${l.check}`,
      '  http-check expect status 200',
      // A check every 500 ms, down after two misses: about a second to follow a failover.
      '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
      ...l.servers.map(
        (s) => `  server ${s.name} 127.0.0.1:${s.port} maxconn 1000 check port ${s.checkPort}`,
      ),
    );
  }
  writeFileSync(config, `${lines.join('\n')}\n`);
  const proc = await spawnProcess({
    name: opts.name,
    cmd: bin,
    args: ['-db', '-f', config],
    readyCheck: () => opts.readyCheck(ports),
    readyTimeoutMs: 30_000,
    ports: Object.values(ports),
    logFile: join(opts.dir, `${opts.name}.log`),
  });
  return { ports, proc, stop: () => proc.stop() };
}
