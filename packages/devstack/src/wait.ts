// Small waiting/port helpers shared by every starter. Kept dependency-free so the
// supervisor and the tests can use them without pulling in a server library.
import { createServer, connect } from 'node:net';

export interface WaitOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What we are waiting for; goes into the timeout error so the log says which part hung. */
  what: string;
  /** Stops waiting early (e.g. the child process died); the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns something other than false/null/undefined, and returns that.
 * A throw counts as "not yet": servers refuse connections until they are up, and the last
 * error is the most useful thing to show when the wait finally times out.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  opts: WaitOptions,
): Promise<Exclude<T, false | null | undefined>> {
  const { timeoutMs = 30_000, intervalMs = 100, what, signal } = opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (signal?.aborted)
      throw signal.reason instanceof Error ? signal.reason : new Error(`Stopped waiting for ${what}`);
    try {
      // A single attempt that hangs (a port that accepts but never answers) must not outlive the deadline.
      const value = await withTimeout(fn(), Math.max(1, deadline - Date.now()), what);
      if (value !== false && value !== null && value !== undefined) {
        return value as Exclude<T, false | null | undefined>;
      }
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

function withTimeout<T>(value: T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([Promise.resolve(value), expired]).finally(() => clearTimeout(timer));
}

/** Ports below the kernel's ephemeral range (32768+ on Linux) that `freePort` hands out. */
const PORTS = { from: 10_000, count: 22_000 };
/** Jest workers side by side each take their own share of PORTS (a run of up to 4 workers). */
const SHARES = 4;

/** The ports this process may hand out: its jest worker's share, or all of PORTS. */
export function portShare(workerId = process.env.JEST_WORKER_ID): { from: number; count: number } {
  const id = Number.parseInt(workerId ?? '', 10);
  if (!Number.isInteger(id) || id < 1) return PORTS;
  const count = Math.floor(PORTS.count / SHARES);
  return { from: PORTS.from + ((id - 1) % SHARES) * count, count };
}

/** Every port this process handed out: never handed out twice (a stack binds its ports late). */
const handedOut = new Set<number>();

/**
 * A port free right now, below the kernel's ephemeral range. Ports the kernel hands out
 * (listen(0), and the source ports of every outgoing connection) come from that range, so a
 * port taken from it could be reused by a connection before the service we start binds it.
 * A stack asks for its ~25 ports before it binds any, seconds later: so this process never
 * hands out a port twice, and each jest worker draws from its own share (two stacks starting
 * side by side once drew the same port and one service failed with EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  const share = portShare();
  if (handedOut.size > share.count / 2) handedOut.clear(); // long-lived process: start over
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = share.from + Math.floor(Math.random() * share.count);
    if (handedOut.has(port)) continue;
    // Reserved before the await: calls running side by side must not both try this port.
    handedOut.add(port);
    if (await canBind(port)) return port;
    handedOut.delete(port);
  }
  throw new Error('Could not allocate a free port');
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function portInUse(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    const finish = (inUse: boolean): void => {
      sock.destroy();
      resolve(inUse);
    };
    sock.setTimeout(timeoutMs, () => finish(true)); // accepted but silent still means taken
    sock.once('connect', () => finish(true));
    sock.once('error', () => finish(false));
  });
}

/**
 * Opens a TCP connection and resolves with the first line the server sends (NATS greets
 * with `INFO {...}`). Rejects on refusal or when nothing arrives within `timeoutMs`.
 */
export function readGreeting(host: string, port: number, timeoutMs = 1500): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    let buf = '';
    const done = (err: Error | null, line?: string): void => {
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(line ?? '');
    };
    const timer = setTimeout(
      () => done(new Error(`no greeting from ${host}:${port} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(null, buf.slice(0, nl).trim());
    });
    sock.once('error', (err) => done(err));
    sock.once('close', () => done(new Error(`${host}:${port} closed the connection without a greeting`)));
  });
}
