// The expiry sweeper: persists `expired` on vouchers whose expires_at passed (reads
// already show it; this makes it durable and emits voucher.updated). Runs every
// interval in each replica; SKIP LOCKED in the store lets replicas share the work.
import type { Logger } from '@hallmark/kit';
import type { VouchersStore } from './store.js';

export class ExpirySweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: VouchersStore,
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
  }

  /** Sweeps until no due voucher is left; returns how many moved. Exposed for tests. */
  async sweepOnce(batchSize = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.store.sweepExpired(batchSize);
      total += n;
      if (n < batchSize || this.stopped) return total;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweepOnce()
        .then((n) => {
          if (n > 0) this.log.info({ expired: n }, 'expiry sweeper: vouchers expired');
        })
        .catch((err) => this.log.warn({ err }, 'expiry sweeper: pass failed; will retry'))
        .finally(() => {
          this.running = null;
          this.schedule(this.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
