// Usage and `key.used` audit records leave the request path: responses enqueue a record,
// a timer ships batches to the keys service. A failed shipment is retried with the same
// batch id (idempotent there); the queue is bounded so an outage cannot exhaust memory.
// A tick ships what is queued when it fires, in batches up to the keys service's limit
// (1000 records); records arriving meanwhile wait for the next tick unless they fill a whole
// batch. (Draining until the queue was empty chased the records of each round trip: a busy
// gateway sent dozens of small batches a second, and the keys service's cost is mostly per
// batch and per key in it — a lock, a roll-up row, last_used_at — not per record.)
// Records wait grouped by key and batches are filled key after key, so a busy second's
// several batches each name a share of the keys, not every key again (bench gateway: 150
// keys in every one of five batches a second was most of the keys database's work).
import { newId, type AsyncClient, type Logger } from '@hallmark/kit';
import type { KeysServiceClient, UsageRecord } from '@hallmark/proto/keys/v1/keys';

/** The keys service's MAX_USAGE_BATCH. */
const MAX_BATCH = 1000;

export class UsageRecorder {
  /** Records waiting, by key (in the order keys first came); `queued` counts them all. */
  private queue = new Map<string, UsageRecord[]>();
  private queued = 0;
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
    if (this.queued >= (this.opts.maxQueue ?? 100_000)) return; // shed, never block
    const ofKey = this.queue.get(r.key_id);
    if (ofKey) ofKey.push(r);
    else this.queue.set(r.key_id, [r]);
    this.queued++;
  }

  /** Up to `max` of the waiting records, whole keys first, taken off the queue. */
  private take(max: number): UsageRecord[] {
    const out: UsageRecord[] = [];
    for (const [key, records] of this.queue) {
      const room = max - out.length;
      if (records.length <= room) {
        for (const r of records) out.push(r);
        this.queue.delete(key);
      } else {
        for (const r of records.splice(0, room)) out.push(r);
      }
      if (out.length >= max) break;
    }
    this.queued -= out.length;
    return out;
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
    let due = this.queued;
    try {
      while (this.pending || due > 0 || this.queued >= max) {
        if (!this.pending) {
          const records = this.take(max);
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
