// The expiry sweeper: persists `expired` on vouchers whose expires_at passed (reads
// already show it; this makes it durable and emits voucher.updated). Runs every
// interval in each replica; SKIP LOCKED in the store lets replicas share the work.
import { IntervalWorker, type Logger } from '@hallmark/kit';
import type { VouchersService } from '../service.js';

export class ExpirySweeper extends IntervalWorker {
  constructor(
    private readonly service: Pick<VouchersService, 'sweepExpired'>,
    log: Logger,
    intervalMs: number,
  ) {
    super({ name: 'expiry sweeper', intervalMs, log }, async () => {
      const n = await this.sweepOnce();
      if (n > 0) log.info({ expired: n }, 'expiry sweeper: vouchers expired');
    });
  }

  /** Sweeps until no due voucher is left; returns how many moved. Exposed for tests. */
  sweepOnce(batchSize = 500): Promise<number> {
    return this.service.sweepExpired(batchSize);
  }
}
