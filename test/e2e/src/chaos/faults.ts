// The seeded fault injector: one fault at a time, kinds dealt from a shuffled deck so every
// kind comes round once per deck, targets and durations drawn from the seed.
import {
  ensureNats,
  jsonRpc,
  sleep,
  type ClusteredEngines,
  type NatsHandle,
  type RestateHandle,
  type Stack,
} from '@hallmark/devstack';
import { SERVICE_NAMES, type ServiceName } from '@hallmark/kit';
import path from 'node:path';
import { CLUSTER_FAULT_KINDS, injectClusterFault } from './cluster-faults.js';
import type { Component, FaultEvent, FaultKind, History } from './history.js';
import type { Rng } from './prng.js';

/**
 * The infrastructure handles as they are now: a restart replaces them (the stack object's
 * own fields keep the first ones), and the run stops the last ones at its end.
 */
export interface Parts {
  nats: NatsHandle;
  restate?: RestateHandle;
  /** Clustered engines (pnpm chaos --clustered): their members are the faults' targets. */
  cluster?: ClusteredEngines;
}

export interface FaultOptions {
  stack: Stack;
  parts: Parts;
  dataDir: string;
  replicas: number;
  rng: Rng;
  log: (line: string) => void;
}

const GWEI = 1_000_000_000n;

/** The kinds this stack can inject, and why the others are skipped. */
export function faultKinds(stack: Stack, clustered = false): { kinds: FaultKind[]; skipped: string[] } {
  if (clustered) {
    // The single-node kinds are replaced by their clustered forms (no single NATS, Restate or
    // PostgreSQL process of the stack's own to restart or pause).
    const kinds: FaultKind[] = ['kill-service', ...CLUSTER_FAULT_KINDS];
    if (stack.anvil) kinds.push('stall-mining', 'base-fee-spike');
    return { kinds, skipped: [] };
  }
  const kinds: FaultKind[] = ['kill-service', 'restart-nats'];
  const skipped: string[] = [];
  if (stack.restate) kinds.push('restart-restate');
  if (stack.anvil) kinds.push('stall-mining', 'base-fee-spike');
  if (stack.postgres.pid) kinds.push('pause-postgres');
  else
    skipped.push('pause-postgres: PostgreSQL is the machine’s, not the stack’s (pnpm chaos --own-postgres)');
  if (!stack.nats.spawned) skipped.push('restart-nats: NATS is not the stack’s');
  return { kinds: stack.nats.spawned ? kinds : kinds.filter((k) => k !== 'restart-nats'), skipped };
}

const hexWei = (wei: bigint) => `0x${wei.toString(16)}`;

export async function injectFaults(o: FaultOptions, h: History, stop: AbortSignal): Promise<void> {
  const { kinds } = faultKinds(o.stack, o.parts.cluster !== undefined);
  // The first deck holds every kind once (a short run sees each); later ones hold three kills
  // each, so every process (replicas included) comes round in a longer run. On clustered
  // engines later decks deal each clustered kind first (shuffled), then one kill and one chain
  // fault (the chain kinds take turns): a failover costs 50–70 s (Patroni's 20 s leader ttl, then
  // the old primary's rejoin), and a 10-minute run must see each clustered kind at least five
  // times, a deck the run's end cuts short included.
  const clustered = o.parts.cluster !== undefined;
  const chainKinds = kinds.filter((k) => k === 'stall-mining' || k === 'base-fee-spike');
  let round = 0;
  const later = (): FaultKind[] => {
    round++;
    if (!clustered) return shuffle<FaultKind>([...kinds, 'kill-service', 'kill-service'], o.rng);
    const chain = chainKinds.length ? [chainKinds[round % chainKinds.length]!] : [];
    return [
      ...shuffle([...CLUSTER_FAULT_KINDS], o.rng),
      ...shuffle<FaultKind>(['kill-service', ...chain], o.rng),
    ];
  };
  let deck: FaultKind[] = shuffle([...kinds], o.rng);
  const targets: string[] = [];
  while (!stop.aborted) {
    await sleep(o.rng.int(1000, 4000));
    if (stop.aborted) break;
    if (deck.length === 0) deck = later();
    const kind = deck.shift()!;
    if (kind === 'kill-service' && targets.length === 0)
      targets.push(...shuffle([...o.stack.processes.keys()], o.rng));
    const event = await inject(kind, o, kind === 'kill-service' ? targets.shift()! : '');
    h.faults.push(event);
    o.log(
      `  +${((event.start - h.started) / 1000).toFixed(1).padStart(6)} s  ${kind.padEnd(15)} ${event.target.padEnd(14)} ${((event.end - event.start) / 1000).toFixed(1)} s${event.note ? `  ${event.note}` : ''}`,
    );
  }
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

async function inject(kind: FaultKind, o: FaultOptions, target: string): Promise<FaultEvent> {
  const { stack, rng } = o;
  const start = Date.now();
  const done = (target: string, component: Component | undefined, note?: string): FaultEvent => ({
    kind,
    target,
    ...(component ? { component } : {}),
    start,
    end: Date.now(),
    ...(note ? { note } : {}),
  });
  switch (kind) {
    case 'failover-postgres':
    case 'kill-nats-node':
    case 'pause-nats-node':
    case 'kill-restate-node': {
      const { target, note } = await injectClusterFault(kind, o.parts.cluster!, rng);
      // The engine's component: its 503s are excused, and counted per kind in the summary.
      const component: Component =
        kind === 'failover-postgres' ? 'postgres' : kind === 'kill-restate-node' ? 'restate' : 'nats';
      return done(target, component, note);
    }
    case 'kill-service': {
      const label = target;
      const [name, replica] = label.split('#') as [ServiceName | 'gateway', string | undefined];
      const proc = stack.processes.get(label)!;
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await proc.exited;
      await sleep(rng.int(500, 3000));
      if (replica) await stack.startReplica(name as ServiceName, Number(replica));
      else await stack.startService(name);
      // A killed replica takes no calls (the first process of each backend serves them).
      return done(label, replica ? undefined : (name as Component), 'kill -9');
    }
    case 'restart-nats': {
      const port = Number(new URL(o.parts.nats.url).port);
      await o.parts.nats.stop();
      await sleep(rng.int(1000, 4000));
      o.parts.nats = await ensureNats({
        dataDir: o.dataDir,
        forceSpawn: true,
        port,
        logFile: path.join(o.dataDir, 'logs', 'nats.log'),
      });
      return done('nats', 'nats');
    }
    case 'restart-restate': {
      const pid = o.parts.restate!.pid;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await o.parts.restate!.exited;
      await sleep(rng.int(500, 3000));
      o.parts.restate = await stack.restartRestate();
      return done('restate', 'restate', 'kill -9');
    }
    case 'stall-mining': {
      const rpc = stack.anvil!.rpcUrl;
      await jsonRpc(rpc, 'evm_setAutomine', [false]);
      await sleep(rng.int(3000, 10_000));
      await jsonRpc(rpc, 'evm_setAutomine', [true]);
      await jsonRpc(rpc, 'evm_mine'); // what queued up while stalled
      return done('anvil', 'anvil', 'no blocks');
    }
    case 'base-fee-spike': {
      const rpc = stack.anvil!.rpcUrl;
      const gwei = BigInt(rng.int(50, 200));
      // Transactions queue at the old fee while no block comes; then the base fee jumps and
      // blocks come again: what queued is underpriced and sits in the pool until the relayer
      // replaces it (HALLMARK_CHAIN_REPLACE_AFTER_MS is 3 s in this stack). No reset after: the
      // fee decays block by block as on a real chain.
      await jsonRpc(rpc, 'evm_setAutomine', [false]);
      await sleep(rng.int(2000, 4000));
      const queued = await pendingCount(rpc);
      await jsonRpc(rpc, 'anvil_setNextBlockBaseFeePerGas', [hexWei(gwei * GWEI)]);
      await jsonRpc(rpc, 'evm_mine');
      const stuck = await pendingCount(rpc);
      await jsonRpc(rpc, 'evm_setAutomine', [true]);
      const until = Date.now() + rng.int(5000, 10_000);
      let most = stuck;
      while (Date.now() < until) {
        await sleep(500);
        most = Math.max(most, await pendingCount(rpc));
      }
      // anvil drops from its pool what cannot pay the spiked fee: the relayer's records still
      // hold those transactions, unmined, until it replaces them.
      return done(
        'anvil',
        'anvil',
        `base fee ${gwei} gwei; ${queued} queued at the old fee, ${stuck} left after the spiked block, at most ${most} pending`,
      );
    }
    case 'pause-postgres': {
      // SIGSTOP to the server's process group: the postmaster and every backend freeze with
      // their connections open, as a stalled disk or a VM pause looks to clients.
      const pid = o.stack.postgres.pid!;
      const ms = o.rng.int(2000, 6000);
      process.kill(-pid, 'SIGSTOP');
      try {
        await sleep(ms);
      } finally {
        process.kill(-pid, 'SIGCONT');
      }
      return done('postgres', 'postgres', `paused ${(ms / 1000).toFixed(1)} s`);
    }
  }
}

async function pendingCount(rpc: string): Promise<number> {
  const s = await jsonRpc<{ pending: string }>(rpc, 'txpool_status').catch(() => ({ pending: '0x0' }));
  return Number(s.pending);
}

export const BACKENDS = SERVICE_NAMES;
