// The mint worker: drives the relayer over open chain submissions, at an interval and at
// once when MintBatch records a batch (wake). Only the replica holding the PostgreSQL
// advisory lock of the relayer's signer address signs and sends, so one signer has one
// nonce sequence however many replicas run; the others stand by and take over when the
// lock holder's session ends.
import type { Logger, Pool, PoolClient } from '@hallmark/kit';
import type { Relayer } from './chain/relayer.js';

export class MintWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lock: PoolClient | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly relayer: Relayer,
    private readonly log: Logger,
    private readonly intervalMs: number,
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
    if (this.lock) return true;
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [`certificates-relayer:${this.relayer.address.toLowerCase()}`],
      );
      if (rows[0]?.ok) {
        // A lost connection ends the session and so frees the lock for another replica.
        client.on('error', () => {
          if (this.lock === client) this.lock = null;
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
          await this.relayer.processOpen();
        } while (this.again && !this.stopped);
      })()
        .catch((err) => this.log.warn({ err }, 'mint worker: pass failed; will retry'))
        .finally(() => {
          this.running = null;
          this.schedule(this.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
