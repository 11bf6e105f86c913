// Keeps gifts' workflows started: a gift committed while Restate was unreachable is started
// again until Restate accepts it (a repeat for a started workflow does nothing).
import { IntervalWorker, type Logger, type Pool } from '@hallmark/kit';
import type { GiftService } from '../service.js';
import type { GiftStore } from '../store.js';

export function giftStarter(
  gifts: GiftStore,
  service: GiftService,
  pool: Pool,
  log: Logger,
  intervalMs: number,
) {
  return new IntervalWorker(
    { name: 'gift workflow starter', intervalMs, log, pool, lockKey: 'certificates-gift-starter' },
    async () => {
      for (const id of await gifts.unstarted(100)) await service.startWorkflow(id);
    },
  );
}
