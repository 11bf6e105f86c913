// A deliberately small process supervisor: every server the dev stack runs goes through
// spawnProcess so that output is labelled, readiness is awaited the same way everywhere,
// and stopAll() (registry.ts) can take down everything this Node process started.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isAlive, signalGroup, track } from './registry.js';
import { portInUse, sleep, waitFor } from './wait.js';

export interface SpawnOptions {
  /** Label used as the `[name]` output prefix and in error messages. */
  name: string;
  cmd: string;
  args?: string[];
  /** Merged over process.env. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Polled until it resolves to something other than false/null/undefined. */
  readyCheck: () => Promise<unknown>;
  readyTimeoutMs?: number;
  /** Append output here instead of prefixing it onto our stdout/stderr. */
  logFile?: string;
  /** First signal on stop (default SIGTERM; PostgreSQL wants SIGINT = fast shutdown). */
  stopSignal?: NodeJS.Signals;
  /** Run as another user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
  /**
   * Records the child's pid here while it runs. If a previous run of this process crashed
   * and left its child behind, that orphan still holds the ports and data locks; the next
   * spawn finds it through this file and stops it first.
   */
  pidFile?: string;
  /**
   * Ports the child will listen on. Checked before spawning: otherwise the readiness check
   * could pass against whatever already listens there while our child fails to bind.
   */
  ports?: number[];
}

export interface ProcessHandle {
  name: string;
  pid: number;
  /** Resolves when the child has exited (for any reason). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** How the child ended, or null while it runs. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | null;
  stop(): Promise<void>;
}

const KILL_AFTER_MS = 5_000;

/** Stops a leftover child of a crashed earlier run, identified by its pid file and command name. */
async function reapOrphan(opts: SpawnOptions): Promise<void> {
  if (!opts.pidFile) return;
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(opts.pidFile, 'utf8'), 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || !isAlive(pid)) return;
  // Only kill it if it really is the same program: pids get reused after a reboot.
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes(basename(opts.cmd))) return;
  process.stderr.write(
    `[${opts.name}] stopping leftover ${basename(opts.cmd)} (pid ${pid}) from an earlier run\n`,
  );
  signalGroup(pid, opts.stopSignal ?? 'SIGTERM');
  const deadline = Date.now() + KILL_AFTER_MS;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(20);
}

/** Streams lines to our stdout/stderr with a `[name]` prefix and keeps a short tail for error messages. */
function pipeLines(stream: Readable | null, name: string, out: NodeJS.WriteStream, tail: string[]): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    out.write(`[${name}] ${line}\n`);
  });
}

function fileTail(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-40);
  } catch {
    return [];
  }
}

/**
 * Spawns `cmd` in its own process group, waits until `readyCheck` passes, and returns a
 * handle whose stop() sends `stopSignal` (SIGTERM) to the group and SIGKILL after 5 s.
 * Rejects (and cleans up) if the child exits or the check times out before it is ready.
 */
export async function spawnProcess(opts: SpawnOptions): Promise<ProcessHandle> {
  const { name, cmd, args = [], readyTimeoutMs = 30_000, stopSignal = 'SIGTERM' } = opts;
  await reapOrphan(opts);
  for (const port of opts.ports ?? []) {
    if (await portInUse(port)) {
      throw new Error(
        `${name}: port ${port} on 127.0.0.1 is already in use by another process; stop it or choose another port.`,
      );
    }
  }

  let logFd: number | undefined;
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    logFd = openSync(opts.logFile, 'a');
  }
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    // detached = new process group, so a stop reaches the server's own children, and a
    // Ctrl-C in the terminal reaches only us: we decide the shutdown order.
    detached: true,
    stdio: ['ignore', logFd ?? 'pipe', logFd ?? 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  if (logFd !== undefined) closeSync(logFd); // the child holds its own copy

  const tail: string[] = [];
  pipeLines(child.stdout, name, process.stdout, tail);
  pipeLines(child.stderr, name, process.stderr, tail);
  const lastOutput = (): string => (opts.logFile ? fileTail(opts.logFile) : tail).join('\n').trim();

  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let startError: Error | undefined;
  const died = new AbortController(); // aborts the readiness wait as soon as the child is gone
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (err) => {
      // spawn failures (ENOENT, EACCES) arrive here instead of as an exit.
      startError = new Error(`${name}: could not start ${cmd}: ${err.message}`);
      exitInfo = { code: null, signal: null };
      died.abort(startError);
      resolve(exitInfo);
    });
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      died.abort(new Error(`${name} exited`));
      resolve(exitInfo);
    });
  });
  void exited.then(() => {
    untrack();
    if (opts.pidFile) rmSync(opts.pidFile, { force: true });
  });

  const pid = child.pid ?? -1;
  let stopping: Promise<void> | undefined;
  const handle: ProcessHandle = {
    name,
    pid,
    exited,
    exitStatus: () => exitInfo ?? null,
    stop() {
      stopping ??= (async () => {
        if (!exitInfo && pid > 0) {
          signalGroup(pid, stopSignal);
          const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_AFTER_MS);
          await exited;
          clearTimeout(timer);
        }
        await exited;
        // Stragglers that outlived the leader (workers) would keep ports busy.
        if (pid > 0) signalGroup(pid, 'SIGKILL');
      })();
      return stopping;
    },
  };
  const untrack = track(handle); // handle.pid lets stopAllOnExit() SIGKILL the group
  if (opts.pidFile && pid > 0) writeFileSync(opts.pidFile, `${pid}\n`);

  try {
    // No pid means the spawn itself failed; the 'error' event with the reason follows.
    if (child.pid === undefined) await exited;
    await waitFor(opts.readyCheck, {
      what: `${name} (pid ${pid}) to become ready`,
      timeoutMs: readyTimeoutMs,
      signal: died.signal,
    });
    // A check that passed against someone else's server on our port must not hide our child's death.
    if (died.signal.aborted) throw died.signal.reason;
  } catch (err) {
    const diedEarly = died.signal.aborted; // read before stop(), which makes the child exit too
    await handle.stop();
    await new Promise((r) => setImmediate(r)); // let the last output lines arrive
    const output = lastOutput();
    const withOutput = (msg: string): Error => new Error(output ? `${msg}. Last output:\n${output}` : msg);
    if (startError) throw startError;
    if (diedEarly && exitInfo) {
      throw withOutput(
        `${name} exited (code ${exitInfo.code}, signal ${exitInfo.signal}) before it was ready`,
      );
    }
    throw withOutput((err as Error).message);
  }
  return handle;
}
