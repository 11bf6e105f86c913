// Keeps gifts' workflows started: a gift committed while Restate was unreachable is started
// again until Restate accepts it (a repeat for a started workflow does nothing; kit
// `keepStartedWorker`).
import { keepStartedWorker, type Logger, type Pool } from '@hallmark/kit';
import type { GiftService } from '../service.js';
import type { GiftStore } from '../store.js';

export function giftStarter(
  gifts: GiftStore,
  service: GiftService,
  pool: Pool,
  log: Logger,
  intervalMs: number,
) {
  return keepStartedWorker({
    name: 'gift workflow starter',
    lockKey: 'certificates-gift-starter',
    intervalMs,
    pool,
    log,
    unstarted: (limit) => gifts.unstarted(limit),
    start: (id) => service.startWorkflow(id),
  });
}
