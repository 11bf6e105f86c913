// One PostgreSQL LISTEN that outlives its connection. A worker that waits for work (the outbox
// relay, notify's delivery worker and listen hub) is woken by a NOTIFY its writers send at
// commit, and polls as well, so a lost wake-up is only latency. The connection that LISTENs
// is held out of the pool; when the server drops it (a restart, a failover, an operator's
// pg_terminate_backend) it is released and a new one LISTENs again, with backoff, while the
// worker goes on polling. Without a listener of its own an 'error' on that connection would
// end the process.
import type { Logger } from 'pino';
import type { Pool, PoolClient } from './db.js';

export interface PgListenerOptions {
  pool: Pool;
  /** The channel (an SQL identifier: lower case, digits, underscores). */
  channel: string;
  log: Logger;
  /**
   * Called on each NOTIFY on the channel (with its payload), and once after the LISTEN is
   * back from a loss (without one): what was announced while it was deaf is read then.
   */
  onNotify: (payload?: string) => void;
  /** First wait before listening again after a failure; it doubles up to 5 s. Default 100 ms. */
  retryMs?: number;
}

const MAX_RETRY_MS = 5_000;

export class PgListener {
  private client: PoolClient | null = null;
  private running = false;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private retryMs: number;
  /** A LISTEN was lost (or never made): the next one that holds wakes the caller. */
  private deaf = false;

  constructor(private readonly opts: PgListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new Error(`invalid LISTEN channel: ${opts.channel}`);
    this.retryMs = opts.retryMs ?? 100;
  }

  /** Whether a connection LISTENs now (false while it is being made again). */
  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * LISTENs, once per listener however often it is called. It never throws: when the
   * database cannot be reached it says so and keeps trying in the background.
   */
  async start(): Promise<void> {
    if (this.running) return this.connecting ?? undefined;
    this.running = true;
    return this.connect();
  }

  /** UNLISTENs and gives the connection back; no reconnect after this. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.connecting;
    const client = this.client;
    this.client = null; // from here on an 'error' on it is not ours to handle
    if (!client) return;
    await client.query(`UNLISTEN ${this.opts.channel}`).catch(() => undefined);
    client.release();
  }

  private connect(): Promise<void> {
    return (this.connecting ??= this.open().finally(() => (this.connecting = null)));
  }

  private async open(): Promise<void> {
    let client: PoolClient;
    try {
      client = await this.opts.pool.connect();
    } catch (err) {
      return this.lost(err);
    }
    client.on('error', (err) => {
      // Only the current listener is ours to release: stop() may have released it already,
      // and a second release throws from pg-pool.
      if (this.client !== client) return;
      this.client = null;
      client.release(err);
      this.lost(err);
    });
    client.on('notification', (n) => {
      if (n.channel === this.opts.channel) this.opts.onNotify(n.payload || undefined);
    });
    try {
      await client.query(`LISTEN ${this.opts.channel}`);
    } catch (err) {
      client.release(err as Error);
      return this.lost(err);
    }
    if (!this.running) {
      client.release(true); // stopped while it connected: the LISTEN goes with the connection
      return;
    }
    this.client = client;
    this.retryMs = this.opts.retryMs ?? 100;
    if (this.deaf) {
      this.deaf = false;
      this.opts.log.info({ channel: this.opts.channel }, 'LISTEN is back');
      this.opts.onNotify();
    }
  }

  private lost(err: unknown): void {
    if (!this.running) return;
    if (!this.deaf)
      this.opts.log.warn({ err, channel: this.opts.channel }, 'LISTEN lost; polling until it is back');
    this.deaf = true;
    const wait = this.retryMs;
    this.retryMs = Math.min(wait * 2, MAX_RETRY_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.running) void this.connect();
    }, wait);
    this.retry.unref();
  }
}
