// The list of everything this Node process started (child servers and in-process servers
// such as the SMTP sink), so that one stopAll() can take it all down. Nothing here runs at
// import time; signal handling is opt-in through stopAllOnExit().

export interface Stoppable {
  stop(): Promise<void>;
  /** Set for child processes: the id of their process group, for last-resort SIGKILL. */
  pid?: number;
}

const running = new Set<Stoppable>();

/** Registers a resource with stopAll(); returns the unregister function. */
export function track(item: Stoppable): () => void {
  running.add(item);
  return () => running.delete(item);
}

/** Stops everything this process started, concurrently; never throws. */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...running].map((item) => item.stop()));
}

/** Signals a whole process group: servers like PostgreSQL fork workers that must go too. */
export function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Opt-in for entry points such as `pnpm start`: on SIGINT/SIGTERM/SIGHUP stop everything,
 * then exit; on any other exit SIGKILL whatever is left (exit handlers cannot await).
 * Not done at import time so that libraries and tests keep control of their own signals.
 */
export function stopAllOnExit(): void {
  let shuttingDown = false;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      if (shuttingDown) return;
      shuttingDown = true;
      void stopAll().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
    });
  }
  process.once('exit', () => {
    for (const item of running) if (item.pid && item.pid > 0) signalGroup(item.pid, 'SIGKILL');
  });
}
