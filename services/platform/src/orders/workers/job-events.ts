// Hears bulk's `bulk.job.completed` / `bulk.job.failed` and wakes the order's workflow, so a
// paid order's fulfilment follows its job at once rather than at the next re-check.
import { startConsumer, type Bus, type Consumer, type Logger, type Pool } from '@hallmark/kit';
import type { OrdersStore } from '../store.js';
import type { OrderWorkflowIngress } from '../workflows/ingress.js';

export function jobEventsConsumer(
  bus: Bus,
  pool: Pool,
  orders: OrdersStore,
  ingress: OrderWorkflowIngress,
  log: Logger,
) {
  let consumer: Consumer | null = null;
  return {
    async start() {
      consumer = await startConsumer({
        bus,
        pool,
        log,
        durable: 'platform-bulk-jobs',
        filter: 'hallmark.bulk.bulk.job.>',
        handle: async (event, tx) => {
          const data = event.data as { shop?: string | null; orderId?: string | null };
          if (!data.shop || !data.orderId) return;
          if (!(await orders.isPaidOrder(tx, data.shop, data.orderId))) return;
          await ingress.jobFinished(data.shop, data.orderId);
        },
      });
    },
    async stop() {
      await consumer?.stop();
    },
  };
}
