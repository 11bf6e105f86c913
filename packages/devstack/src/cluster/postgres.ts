// PostgreSQL as production runs it: a primary and a synchronous standby managed by Patroni
// (etcd as its consensus store), with HAProxy in front whose primary port routes to whichever
// node answers Patroni's `GET /primary` with 200. Killing the primary's node (Patroni and its
// postmaster) makes Patroni promote the standby once the leader key expires; starting it
// again makes it rejoin as a standby (pg_rewind when its timeline diverged).
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { debianBinary } from '../binaries.js';
import { postgresAnswers, postgresUser } from '../postgres.js';
import { freePort, waitFor } from '../wait.js';
import { startHaproxy } from './haproxy.js';
import { clusterNode, type ClusterNode } from './node.js';

export interface PatroniNode extends ClusterNode {
  /** Direct URL of this node's PostgreSQL (bypassing HAProxy). */
  url: string;
  /** Patroni's REST API. */
  restUrl: string;
  /** Patroni's view of the node: 'primary' | 'replica' | 'unreachable'. */
  role(): Promise<'primary' | 'replica' | 'unreachable'>;
}

export interface PatroniClusterHandle {
  /** Through HAProxy's primary port: what DATABASE_URL gets. */
  url: string;
  /** The alternative without HAProxy: every node, libpq's target_session_attrs=read-write. */
  multiHostUrl: string;
  nodes: PatroniNode[];
  /** The node Patroni currently names primary. */
  primary(): Promise<PatroniNode | undefined>;
  /** Resolves once one node is primary and another its synchronous standby. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface PatroniClusterOptions {
  dataDir: string;
  /** Off only for the test that shows what an asynchronous standby loses in a failover. */
  synchronous?: boolean;
}

const SCOPE = 'hallmark';
const PASSWORD = 'postgres';

/** The newest PostgreSQL server the system has (Debian's postgresql-<ver> package). */
function systemPostgresBinDir(): string {
  for (const ver of [18, 17, 16, 15, 14, 13]) {
    const dir = `/usr/lib/postgresql/${ver}/bin`;
    if (existsSync(join(dir, 'postgres'))) return dir;
  }
  throw new Error('no PostgreSQL server under /usr/lib/postgresql/<ver>/bin: apt-get install postgresql');
}

async function statusOf(restUrl: string, path: string): Promise<number> {
  try {
    return (await fetch(`${restUrl}${path}`, { signal: AbortSignal.timeout(1500) })).status;
  } catch {
    return 0;
  }
}

export async function startPatroniCluster(opts: PatroniClusterOptions): Promise<PatroniClusterHandle> {
  const etcdBin = await debianBinary('etcd', 'etcd-server');
  const patroniBin = await debianBinary('patroni', 'patroni');
  const urlAt = (port: number): string => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const binDir = systemPostgresBinDir();
  const owner = await postgresUser();
  const root = resolve(opts.dataDir, 'pg-cluster');
  mkdirSync(root, { recursive: true });
  if (owner) {
    // Patroni runs as the postgres user, which must reach its folders (mkdtemp dirs are 0700):
    // traverse-only bits up to the run's folder, which let nobody list what is in them.
    for (const d of [root, resolve(opts.dataDir), dirname(resolve(opts.dataDir))])
      if (d !== '/' && d !== tmpdir()) chmodSync(d, statSync(d).mode | 0o011);
  }

  // etcd: one member is enough here; the fault under test is PostgreSQL's, not etcd's.
  const etcdPorts = { client: await freePort(), peer: await freePort() };
  const etcdUrl = `http://127.0.0.1:${etcdPorts.client}`;
  const etcdDir = join(root, 'etcd');
  const etcd = clusterNode('etcd', () => ({
    name: 'etcd',
    cmd: etcdBin,
    args: [
      '--name',
      'etcd-1',
      '--data-dir',
      etcdDir,
      '--listen-client-urls',
      etcdUrl,
      '--advertise-client-urls',
      etcdUrl,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPorts.peer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPorts.peer}`,
      '--initial-cluster',
      `etcd-1=http://127.0.0.1:${etcdPorts.peer}`,
    ],
    readyCheck: async () => (await fetch(`${etcdUrl}/health`)).ok,
    readyTimeoutMs: 20_000,
    ports: [etcdPorts.client, etcdPorts.peer],
    logFile: join(root, 'etcd.log'),
  }));
  await etcd.start();

  const ports = [
    { pg: await freePort(), rest: await freePort() },
    { pg: await freePort(), rest: await freePort() },
  ];
  const nodes = ports.map((p, i): PatroniNode => {
    const name = `pg-${i + 1}`;
    const dir = join(root, name);
    const dataDir = join(dir, 'data');
    mkdirSync(dir, { recursive: true });
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const config = join(dir, 'patroni.yml');
    // JSON is YAML: no YAML writer needed.
    const settings = {
      scope: SCOPE,
      name,
      namespace: '/hallmark/',
      restapi: { listen: `127.0.0.1:${p.rest}`, connect_address: `127.0.0.1:${p.rest}` },
      etcd3: { hosts: `127.0.0.1:${etcdPorts.client}` },
      bootstrap: {
        dcs: {
          // Patroni's floor is ttl 20; loop_wait + 2 × retry_timeout must stay under it.
          ttl: 20,
          loop_wait: 2,
          retry_timeout: 5,
          maximum_lag_on_failover: 1048576,
          synchronous_mode: opts.synchronous ?? true,
          postgresql: {
            use_pg_rewind: true,
            parameters: { max_connections: 300, wal_log_hints: 'on', wal_keep_size: '256MB' },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { auth: 'trust' }],
      },
      postgresql: {
        listen: `127.0.0.1:${p.pg}`,
        connect_address: `127.0.0.1:${p.pg}`,
        data_dir: dataDir,
        bin_dir: binDir,
        pgpass: join(dir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres', password: PASSWORD },
          replication: { username: 'postgres', password: PASSWORD },
        },
        pg_hba: [
          'local all all trust',
          'host all all 127.0.0.1/32 trust',
          'host replication all 127.0.0.1/32 trust',
        ],
        parameters: { unix_socket_directories: dir, max_connections: 300 },
      },
    };
    writeFileSync(config, JSON.stringify(settings, null, 2));
    if (owner) chownSync(config, owner.uid, owner.gid);
    const restUrl = `http://127.0.0.1:${p.rest}`;
    const postmasterPid = (): number[] => {
      try {
        const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8'), 10);
        return Number.isInteger(pid) && pid > 1 ? [pid] : [];
      } catch {
        return [];
      }
    };
    const node = clusterNode(
      name,
      () => ({
        name,
        cmd: patroniBin,
        args: [config],
        cwd: dir,
        env: { HOME: dir, LC_ALL: 'C.UTF-8', LC_MESSAGES: 'C' },
        // Up means Patroni's API answers; its role is settled by the cluster wait below.
        readyCheck: async () => (await statusOf(restUrl, '/liveness')) === 200,
        readyTimeoutMs: 60_000,
        stopSignal: 'SIGTERM',
        ports: [p.pg, p.rest],
        logFile: join(dir, 'patroni.log'),
        ...(owner ?? {}),
      }),
      postmasterPid,
    );
    return Object.assign(node, {
      url: urlAt(p.pg),
      restUrl,
      async role() {
        if ((await statusOf(restUrl, '/primary')) === 200) return 'primary' as const;
        if ((await statusOf(restUrl, '/replica')) === 200) return 'replica' as const;
        return 'unreachable' as const;
      },
    });
  });
  // The first node bootstraps alone (initdb); the second then clones it with pg_basebackup.
  await nodes[0]!.start();
  await waitFor(async () => (await nodes[0]!.role()) === 'primary', {
    what: 'Patroni to bootstrap the primary',
    timeoutMs: 60_000,
    intervalMs: 500,
  });
  await nodes[1]!.start();

  // HAProxy's primary port follows Patroni's health check to whichever node leads.
  const haproxy = await startHaproxy({
    dir: root,
    name: 'haproxy-pg',
    listeners: [
      {
        name: 'primary',
        check: 'OPTIONS /primary',
        servers: ports.map((p, i) => ({ name: `pg-${i + 1}`, port: p.pg, checkPort: p.rest })),
      },
    ],
    readyCheck: (lb) => postgresAnswers(urlAt(lb.primary!), 1000),
  });
  const url = urlAt(haproxy.ports.primary!);
  const hosts = ports.map((p) => `127.0.0.1:${p.pg}`).join(',');
  const handle: PatroniClusterHandle = {
    url,
    multiHostUrl: `postgres://postgres:${PASSWORD}@${hosts}/postgres?target_session_attrs=read-write`,
    nodes,
    async primary() {
      for (const n of nodes) if (n.running() && (await n.role()) === 'primary') return n;
      return undefined;
    },
    async healthy(timeoutMs = 90_000) {
      await waitFor(
        async () => {
          const roles = await Promise.all(nodes.map((n) => n.role()));
          if (!roles.includes('primary')) return false;
          // /sync answers 200 on the synchronous standby (async mode: any streaming replica).
          const standby = await Promise.all(
            nodes.map((n) => statusOf(n.restUrl, opts.synchronous === false ? '/replica' : '/sync')),
          );
          return standby.includes(200) && (await postgresAnswers(url, 1000));
        },
        { what: 'a PostgreSQL primary with a synchronous standby', timeoutMs, intervalMs: 500 },
      );
    },
    async stop() {
      await haproxy.stop();
      await Promise.all(nodes.map((n) => n.stop()));
      await etcd.stop();
    },
  };
  await handle.healthy();
  return handle;
}
