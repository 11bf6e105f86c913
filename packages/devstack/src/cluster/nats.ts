// Three nats-server processes as one JetStream cluster (routes between all three, one cluster
// name), each on its own client, route and monitoring ports with its own store folder. R3
// streams then survive one server lost or partitioned away; clients get all three URLs.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { natsServerBinary } from '../binaries.js';
import { freePort, waitFor } from '../wait.js';
import { clusterNode, type ClusterNode } from './node.js';

export interface NatsClusterHandle {
  /** All client URLs, comma-separated: what NATS_URL gets. */
  url: string;
  urls: string[];
  nodes: ClusterNode[];
  /** Resolves once every server reports JetStream healthy (a restarted one has caught up). */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const CLUSTER_NAME = 'hallmark-chaos';

/** 200 from /healthz means the server is up and its JetStream (meta leader included) is ready. */
async function healthy(monitorPort: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${monitorPort}/healthz`, { signal: AbortSignal.timeout(1500) });
  return res.status === 200;
}

export async function startNatsCluster(opts: { dataDir: string; size?: number }): Promise<NatsClusterHandle> {
  const size = opts.size ?? 3;
  const bin = await natsServerBinary();
  const ports: { client: number; route: number; monitor: number }[] = [];
  for (let i = 0; i < size; i++)
    ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  const nodes = ports.map((p, i) => {
    const name = `nats-${i + 1}`;
    const dir = resolve(opts.dataDir, name);
    mkdirSync(dir, { recursive: true });
    return clusterNode(name, () => ({
      name,
      cmd: bin,
      args: [
        '-js',
        '-a',
        '127.0.0.1',
        '-p',
        String(p.client),
        '-m',
        String(p.monitor),
        '-sd',
        dir,
        '-n',
        name,
        '--cluster_name',
        CLUSTER_NAME,
        '--cluster',
        `nats://127.0.0.1:${p.route}`,
        '--routes',
        routes,
      ],
      // A lone server of a cluster never elects a meta leader, so "ready" is "answers" here;
      // the cluster as a whole is awaited below.
      readyCheck: async () => (await fetch(`http://127.0.0.1:${p.monitor}/varz`)).ok,
      readyTimeoutMs: 20_000,
      pidFile: join(dir, 'nats.pid'),
      ports: [p.client, p.route, p.monitor],
      logFile: join(dir, 'nats.log'),
    }));
  });
  await Promise.all(nodes.map((n) => n.start()));
  const allHealthy = (timeoutMs = 30_000) =>
    waitFor(
      async () => (await Promise.all(ports.map((p) => healthy(p.monitor).catch(() => false)))).every(Boolean),
      { what: 'every NATS server to report JetStream healthy', timeoutMs, intervalMs: 250 },
    ).then(() => undefined);
  await allHealthy();
  const urls = ports.map((p) => `nats://127.0.0.1:${p.client}`);
  return {
    url: urls.join(','),
    urls,
    nodes,
    healthy: allHealthy,
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
  };
}
