// A Restate cluster of three restate-server nodes (every node runs every role: metadata
// server, admin, worker, log server) with the replicated loglet at replication 2, so the
// log and the partitions survive one node lost. Node 1 provisions the cluster; the others
// find it through metadata-client.addresses. Each node has its own ingress, admin and
// node ports and base dir; any node's ingress takes calls.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { restateServerBinary } from '../binaries.js';
import { freePort, waitFor } from '../wait.js';
import { startHaproxy } from './haproxy.js';
import { clusterNode, type ClusterNode } from './node.js';

export interface RestateClusterNode extends ClusterNode {
  ingressUrl: string;
  adminUrl: string;
}

export interface RestateClusterHandle {
  /** Through HAProxy: any live node's ingress / admin API (what the services get). */
  ingressUrl: string;
  adminUrl: string;
  nodes: RestateClusterNode[];
  /** Every node's ingress, comma-separated. */
  ingressUrls: string[];
  adminUrls: string[];
  stop(): Promise<void>;
}

const CLUSTER_NAME = 'hallmark-chaos';

async function ok(url: string): Promise<boolean> {
  return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200;
}

export async function startRestateCluster(opts: {
  dataDir: string;
  size?: number;
  replication?: number;
}): Promise<RestateClusterHandle> {
  const size = opts.size ?? 3;
  const bin = restateServerBinary();
  const ports: { ingress: number; admin: number; node: number }[] = [];
  for (let i = 0; i < size; i++)
    ports.push({ ingress: await freePort(), admin: await freePort(), node: await freePort() });
  const addresses = ports.map((p) => `http://127.0.0.1:${p.node}/`);
  const nodes = ports.map((p, i): RestateClusterNode => {
    const name = `restate-${i + 1}`;
    const baseDir = resolve(opts.dataDir, name);
    mkdirSync(baseDir, { recursive: true });
    const config = join(baseDir, 'restate.toml');
    writeFileSync(
      config,
      [
        `node-name = "${name}"`,
        `cluster-name = "${CLUSTER_NAME}"`,
        `roles = ["metadata-server", "admin", "worker", "log-server", "http-ingress"]`,
        // Exactly one node provisions the cluster; a second would create a cluster of its own.
        `auto-provision = ${i === 0}`,
        `default-replication = ${opts.replication ?? 2}`,
        `bind-address = "127.0.0.1:${p.node}"`,
        `advertised-address = "${addresses[i]}"`,
        `listen-mode = "tcp"`,
        `disable-telemetry = true`,
        `[metadata-client]`,
        `addresses = [${addresses.map((a) => `"${a}"`).join(', ')}]`,
        `[bifrost]`,
        `default-provider = "replicated"`,
        `[admin]`,
        `bind-address = "127.0.0.1:${p.admin}"`,
        `[ingress]`,
        `bind-address = "127.0.0.1:${p.ingress}"`,
        '',
      ].join('\n'),
    );
    const adminUrl = `http://127.0.0.1:${p.admin}`;
    const node = clusterNode(name, () => ({
      name,
      cmd: bin,
      args: ['--base-dir', baseDir, '--config-file', config, '--no-logo'],
      cwd: baseDir,
      env: {
        RESTATE_LOG_FORMAT: 'compact',
        RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
        RESTATE_LOG_FILTER: process.env.RESTATE_LOG_FILTER ?? 'warn',
      },
      // The node's own readiness; the cluster (metadata quorum, partitions led) is awaited below.
      readyCheck: () => ok(`${adminUrl}/health`),
      readyTimeoutMs: 90_000,
      pidFile: join(baseDir, 'restate.pid'),
      ports: [p.ingress, p.admin, p.node],
      logFile: join(baseDir, 'restate.log'),
    }));
    return Object.assign(node, { ingressUrl: `http://127.0.0.1:${p.ingress}`, adminUrl });
  });
  // Together: a node that is not the provisioner waits for the metadata quorum.
  await Promise.all(nodes.map((n) => n.start()));
  await waitFor(
    async () => (await Promise.all(nodes.map((n) => ok(`${n.ingressUrl}/restate/health`)))).every(Boolean),
    {
      what: 'every Restate node to take ingress calls',
      timeoutMs: 90_000,
      intervalMs: 500,
    },
  );
  // One address for the clients, as a Kubernetes Service gives them: any healthy node.
  const lb = await startHaproxy({
    dir: opts.dataDir,
    name: 'haproxy-restate',
    listeners: [
      {
        name: 'ingress',
        check: 'GET /restate/health',
        servers: ports.map((p, i) => ({ name: `restate-${i + 1}`, port: p.ingress, checkPort: p.ingress })),
      },
      {
        name: 'admin',
        check: 'GET /health',
        servers: ports.map((p, i) => ({ name: `restate-${i + 1}`, port: p.admin, checkPort: p.admin })),
      },
    ],
    readyCheck: async (lbPorts) => ok(`http://127.0.0.1:${lbPorts.admin}/health`),
  });
  return {
    ingressUrl: `http://127.0.0.1:${lb.ports.ingress}`,
    adminUrl: `http://127.0.0.1:${lb.ports.admin}`,
    nodes,
    ingressUrls: nodes.map((n) => n.ingressUrl),
    adminUrls: nodes.map((n) => n.adminUrl),
    stop: async () => {
      await lb.stop();
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
