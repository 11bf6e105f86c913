// One member of a clustered engine (a NATS server, a Patroni node, a Restate node) under the
// dev stack's supervisor, with the faults the chaos soak injects: kill (SIGKILL to its whole
// process group, as a lost machine), start again on the same ports and data folder, and
// pause/resume (SIGSTOP/SIGCONT: the node is alive to the kernel but answers nobody, which is
// how a network partition looks from its peers and clients).
import { readdirSync, readFileSync } from 'node:fs';
import { signalGroup } from '../registry.js';
import { spawnProcess, type ProcessHandle, type SpawnOptions } from '../process.js';

export interface ClusterNode {
  name: string;
  /** The server's pid while it runs. */
  pid(): number | undefined;
  running(): boolean;
  paused(): boolean;
  /** Starts (again) on the same ports and data folder; resolves when it is ready. */
  start(): Promise<void>;
  /** SIGKILL to the process group: no shutdown, nothing flushed. */
  kill(): Promise<void>;
  /** SIGSTOP: the peers and clients see a node that stopped answering. */
  pause(): void;
  resume(): void;
  /** Orderly stop (teardown). */
  stop(): Promise<void>;
}

/**
 * `alsoKill` names processes the server detached from its own group (Patroni's postmaster
 * runs in a session of its own so that it survives a Patroni restart): a lost machine loses
 * them too.
 */
export function clusterNode(
  name: string,
  spawnOptions: () => SpawnOptions,
  alsoKill: () => number[] = () => [],
): ClusterNode {
  let proc: ProcessHandle | undefined;
  let isPaused = false;
  const alive = (): boolean => proc !== undefined && proc.exitStatus() === null;
  return {
    name,
    pid: () => (alive() ? proc!.pid : undefined),
    running: alive,
    paused: () => isPaused,
    async start() {
      if (alive()) return;
      proc = await spawnProcess(spawnOptions());
    },
    async kill() {
      if (!alive()) return;
      const p = proc!;
      const detached = alsoKill();
      signalGroup(p.pid, 'SIGKILL');
      for (const pid of detached) killTree(pid);
      isPaused = false;
      await p.exited;
    },
    pause() {
      if (!alive() || isPaused) return;
      signalGroup(proc!.pid, 'SIGSTOP');
      isPaused = true;
    },
    resume() {
      if (!alive() || !isPaused) return;
      signalGroup(proc!.pid, 'SIGCONT');
      isPaused = false;
    },
    async stop() {
      if (!alive()) return;
      if (isPaused) this.resume();
      await proc!.stop();
    },
  };
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat, after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** SIGKILL to a process and everything under it (children first collected, then killed). */
export function killTree(pid: number): void {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childrenOf(all[i]!));
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
