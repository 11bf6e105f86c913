// One dev stack per data directory: two stacks on the same PostgreSQL data, Restate base dir
// and chain state would corrupt each other, and the second one's ports would clash anyway.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface LockRecord {
  pid: number;
  startedAt: string;
  /** Kernel start time of `pid` (Linux); tells a live holder from an unrelated process that reuses the pid. */
  procStart?: string;
}

/** Lock files held by this process, so a second acquire from the same process is refused too. */
const heldHere = new Set<string>();

function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); fields are counted after the parenthesised command name, which may contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function holderIsAlive(rec: LockRecord, file: string): boolean {
  if (rec.pid === process.pid) return heldHere.has(file);
  try {
    process.kill(rec.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // In containers pids restart from 1, so a stale file's pid is often alive as something else.
  const now = procStart(rec.pid);
  return !(rec.procStart && now && rec.procStart !== now);
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
    return Number.isInteger(rec.pid) ? rec : undefined;
  } catch {
    return undefined; // unreadable or half-written: treat as stale
  }
}

/**
 * Takes `<dataDir>/stack.pid` for this process. Throws if a live process holds it; a file left
 * by a dead process is taken over. Returns a synchronous release() so it can also run from a
 * process 'exit' handler.
 */
export async function acquireStackLock(dataDir: string): Promise<() => void> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'stack.pid');
  const mine: LockRecord = { pid: process.pid, startedAt: new Date().toISOString() };
  const start = procStart(process.pid);
  if (start) mine.procStart = start;

  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644); // exclusive create: exactly one winner
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readRecord(file);
      if (holder && holderIsAlive(holder, file)) {
        throw new Error(
          `Hallmark is already running (pid ${holder.pid}, started ${holder.startedAt}). Stop it first or set HALLMARK_DATA_DIR to another directory.`,
        );
      }
      // A fresh holder may still be writing its record; only a settled file is stale.
      if (!holder && attempt === 0) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(mine));
    } finally {
      closeSync(fd);
    }
    heldHere.add(file);
    return () => {
      if (!heldHere.delete(file)) return;
      // Only remove our own record: never a lock someone else took over meanwhile.
      if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
    };
  }
  throw new Error(`Could not take ${file}: another process keeps replacing it.`);
}
