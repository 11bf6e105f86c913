// The faults of clustered engines (`pnpm chaos --clustered`): what production loses is one
// member, not the whole engine. A PostgreSQL primary killed (Patroni promotes the synchronous
// standby; the old primary then rejoins as a standby), one NATS server of three killed or
// paused (SIGSTOP: a partition, as its peers and clients see it), one Restate node of three
// killed. Each returns once the engine is whole again, with a note of how long that took.
import { sleep, waitFor, type ClusteredEngines, type ClusterNode } from '@hallmark/devstack';
import type { FaultKind } from './history.js';
import type { Rng } from './prng.js';

export const CLUSTER_FAULT_KINDS: FaultKind[] = [
  'failover-postgres',
  'kill-nats-node',
  'pause-nats-node',
  'kill-restate-node',
];

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pick = <T>(items: T[], rng: Rng): T => items[rng.int(0, items.length - 1)]!;

/** Injects one clustered fault; resolves with its target and a note once all members are back. */
export async function injectClusterFault(
  kind: FaultKind,
  cluster: ClusteredEngines,
  rng: Rng,
): Promise<{ target: string; note: string }> {
  switch (kind) {
    case 'failover-postgres': {
      const pg = cluster.postgres;
      const old = await pg.primary();
      if (!old) throw new Error('failover-postgres: no primary to kill');
      const t0 = Date.now();
      await old.kill();
      // Patroni promotes the synchronous standby once the old leader's key expires (ttl).
      await waitFor(async () => (await pg.primary()) ?? false, {
        what: 'Patroni to promote the standby',
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      const promoted = Date.now() - t0;
      await sleep(rng.int(1000, 5000));
      const t1 = Date.now();
      await old.start();
      await pg.healthy(180_000); // rejoined (pg_rewind if needed) and synchronous again
      return {
        target: old.name,
        note: `primary killed; standby promoted after ${secs(promoted)}; old primary rejoined in ${secs(Date.now() - t1)}`,
      };
    }
    case 'kill-nats-node': {
      const node = pick(cluster.nats.nodes, rng);
      await node.kill();
      await sleep(rng.int(1000, 5000));
      await restartAndWait(node, () => cluster.nats.healthy(60_000));
      return { target: node.name, note: 'kill -9, restarted' };
    }
    case 'pause-nats-node': {
      const node = pick(cluster.nats.nodes, rng);
      const ms = rng.int(3000, 8000);
      node.pause();
      try {
        await sleep(ms);
      } finally {
        node.resume();
      }
      await cluster.nats.healthy(60_000);
      return { target: node.name, note: `SIGSTOP ${secs(ms)}` };
    }
    case 'kill-restate-node': {
      const node = pick(cluster.restate.nodes, rng);
      await node.kill();
      await sleep(rng.int(1000, 5000));
      await restartAndWait(node, () =>
        waitFor(async () => (await fetch(`${node.ingressUrl}/restate/health`)).ok, {
          what: `${node.name} to take ingress calls again`,
          timeoutMs: 90_000,
          intervalMs: 500,
        }),
      );
      return { target: node.name, note: 'kill -9, restarted' };
    }
    default:
      throw new Error(`not a clustered fault: ${kind}`);
  }
}

async function restartAndWait(node: ClusterNode, whole: () => Promise<unknown>): Promise<void> {
  await node.start();
  await whole();
}
