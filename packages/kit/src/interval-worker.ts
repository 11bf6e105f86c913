// A background loop for the service's `workers`: runs `pass` at an interval (and at once on
// `wake`), one pass at a time, logging a failed pass and trying again at the next interval.
// With `lockKey` only the replica holding that PostgreSQL advisory lock runs passes (the lock
// is held on a dedicated connection for the worker's lifetime; a lost connection frees it).
import type { PoolClient } from 'pg';
import type { Pool } from './db.js';
import type { Logger } from './log.js';

export interface IntervalWorkerOptions {
  name: string;
  intervalMs: number;
  log: Logger;
  pool?: Pool;
  lockKey?: string;
}

export class IntervalWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lock: PoolClient | null = null;

  constructor(
    private readonly opts: IntervalWorkerOptions,
    private readonly pass: () => Promise<unknown>,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    if (this.lock) {
      const lock = this.lock;
      this.lock = null;
      await lock.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      lock.release();
    }
  }

  /** Whether this replica holds the worker's lock now (a worker without `lockKey`: false). */
  get holding(): boolean {
    return this.lock !== null;
  }

  /** Run a pass now (or right after the current one). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private async holdsLock(): Promise<boolean> {
    const { pool, lockKey } = this.opts;
    if (!pool || !lockKey || this.lock) return true;
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [lockKey],
      );
      if (rows[0]?.ok) {
        // The lock's connection lost (a failover): the lock went with it. Released with the
        // error, the pool drops the connection and its slot is free again; only dropping the
        // reference leaked one slot per locked worker per failover, until the pool was empty.
        client.on('error', (err) => {
          if (this.lock !== client) return;
          this.lock = null;
          client.release(err);
        });
        this.lock = client;
        return true;
      }
      client.release();
      return false;
    } catch (err) {
      client.release();
      throw err;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = (async () => {
        do {
          this.again = false;
          if (!(await this.holdsLock())) return;
          await this.pass();
        } while (this.again && !this.stopped);
      })()
        .catch((err) => this.opts.log.warn({ err }, `${this.opts.name}: pass failed; will retry`))
        .finally(() => {
          this.running = null;
          this.schedule(this.opts.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
