// Usage and `key.used` audit records leave the request path: responses enqueue a record,
// a timer ships batches to the keys service. A failed shipment is retried with the same
// batch id (idempotent there); the queue is bounded so an outage cannot exhaust memory.
// A tick ships what is queued when it fires, in batches up to the keys service's limit
// (1000 records); records arriving meanwhile wait for the next tick unless they fill a whole
// batch. (Draining until the queue was empty chased the records of each round trip: a busy
// gateway sent dozens of small batches a second, and the keys service's cost is mostly per
// batch and per key in it — a lock, a roll-up row, last_used_at — not per record.)
import { newId, type AsyncClient, type Logger } from '@hallmark/kit';
import type { KeysServiceClient, UsageRecord } from '@hallmark/proto/keys/v1/keys';

/** The keys service's MAX_USAGE_BATCH. */
const MAX_BATCH = 1000;

export class UsageRecorder {
  private queue: UsageRecord[] = [];
  private pending: { id: string; records: UsageRecord[] } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly keys: AsyncClient<KeysServiceClient>,
    private readonly log: Logger,
    private readonly opts: { intervalMs?: number; maxBatch?: number; maxQueue?: number } = {},
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.opts.intervalMs ?? 1000);
    this.timer.unref();
  }

  record(r: UsageRecord): void {
    if (this.queue.length >= (this.opts.maxQueue ?? 100_000)) return; // shed, never block
    this.queue.push(r);
  }

  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    // `.finally` runs after the assignment below even when there is nothing to ship, so a
    // finished flush can never be left behind as the "current" one.
    this.flushing = this.ship().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async ship(): Promise<void> {
    const max = this.opts.maxBatch ?? MAX_BATCH;
    let due = this.queue.length;
    try {
      while (this.pending || due > 0 || this.queue.length >= max) {
        if (!this.pending) {
          const records = this.queue.splice(0, max);
          due = Math.max(0, due - records.length);
          this.pending = { id: newId('event'), records };
        }
        await this.keys.recordUsage(
          { batch_id: this.pending.id, records: this.pending.records },
          { idempotent: true },
        );
        this.pending = null;
      }
    } catch (err) {
      this.log.warn({ err }, 'usage batch not delivered; will retry');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
