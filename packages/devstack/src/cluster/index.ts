// The clustered topology of `pnpm chaos --clustered` and its test: PostgreSQL under Patroni
// (primary + synchronous standby, HAProxy's primary port), a three-server NATS JetStream
// cluster, a three-node Restate cluster behind HAProxy. Every engine has its own ports and
// folders under `dataDir`; stop() tears all of it down.
import { resolve } from 'node:path';
import { startNatsCluster, type NatsClusterHandle } from './nats.js';
import { startPatroniCluster, type PatroniClusterHandle } from './postgres.js';
import { startRestateCluster, type RestateClusterHandle } from './restate.js';

export interface ClusteredEngines {
  postgres: PatroniClusterHandle;
  nats: NatsClusterHandle;
  restate: RestateClusterHandle;
  stop(): Promise<void>;
}

export async function startClusteredEngines(opts: {
  dataDir: string;
  /** Patroni's synchronous_mode (default on); off only to show what a failover then loses. */
  synchronous?: boolean;
}): Promise<ClusteredEngines> {
  const dir = resolve(opts.dataDir, 'cluster');
  // One after another: the machine is small and each waits for its own quorum.
  const postgres = await startPatroniCluster({
    dataDir: dir,
    ...(opts.synchronous === undefined ? {} : { synchronous: opts.synchronous }),
  });
  const nats = await startNatsCluster({ dataDir: dir }).catch(async (err: unknown) => {
    await postgres.stop();
    throw err;
  });
  const restate = await startRestateCluster({ dataDir: dir }).catch(async (err: unknown) => {
    await Promise.all([postgres.stop(), nats.stop()]);
    throw err;
  });
  return {
    postgres,
    nats,
    restate,
    stop: async () => {
      await Promise.allSettled([restate.stop(), nats.stop()]);
      await postgres.stop();
    },
  };
}

/**
 * What every Hallmark process gets beyond DATABASE_URL (HAProxy's primary port) and NATS_URL
 * (all three servers): Restate through its load balancer, and streams at three replicas, since
 * events survive a NATS server lost only then.
 */
export function clusteredEnv(c: ClusteredEngines): Record<string, string> {
  return {
    HALLMARK_RESTATE_INGRESS_URL: c.restate.ingressUrl,
    HALLMARK_RESTATE_ADMIN_URL: c.restate.adminUrl,
    HALLMARK_NATS_STREAM_REPLICAS: '3',
  };
}

export type { ClusterNode } from './node.js';
export type { NatsClusterHandle } from './nats.js';
export type { PatroniClusterHandle, PatroniNode } from './postgres.js';
export type { RestateClusterHandle, RestateClusterNode } from './restate.js';
export { startNatsCluster, startPatroniCluster, startRestateCluster };
