// Keeps paid orders' workflows started (an order committed while Restate was unreachable is
// sent again until Restate accepts it; a repeat for a started workflow does nothing; kit
// `keepStartedWorker`), and in the same pass cancelled orders' vouchers voided (until
// certificates accepts the void), and uninstalled shops' provisioned keys revoked (until keys
// accepts the revocation).
import { keepStartedWorker, type Logger, type Pool } from '@hallmark/kit';
import type { InstallStore } from '../../install/store.js';
import type { Cancellations } from '../cancellation.js';
import type { OrdersService } from '../service.js';
import type { OrdersStore } from '../store.js';

export function orderSubmitter(
  orders: OrdersStore,
  svc: OrdersService,
  cancellations: Cancellations,
  installs: InstallStore,
  pool: Pool,
  log: Logger,
  intervalMs: number,
) {
  return keepStartedWorker({
    name: 'order submitter',
    lockKey: 'platform-order-submitter',
    intervalMs,
    pool,
    log,
    unstarted: (limit) => orders.unsubmitted(limit),
    start: (o) => svc.startWorkflow(o.shop, o.orderId),
    alsoEachPass: async () => {
      for (const k of await installs.pendingRevocations(100)) await svc.revokeProvisionedKey(k);
      for (const o of await orders.unvoided(100))
        if (!(await cancellations.voidIfCancelled(o.shop, o.orderId))) break;
    },
  });
}
