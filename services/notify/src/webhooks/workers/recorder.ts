// Records the delivery worker's attempt outcomes in the order they arrive, as few statements as
// the database allows: while one write is under way the answers that come in wait, and the
// next write takes them all — a run of successes as one statement (recordSucceeded), anything
// else (a retry, a last failure) one by one as before, in place. Under a burst the database
// sees a statement (and a commit) per batch of answers, not per answer; when idle, an answer
// is written at once. Order is kept, so a subscription's failure streak counts as it happened.
import type { Claim, DeliveriesStore, Outcome } from '../deliveries-store.js';
import type { DeliveryStatus } from '../domain/validation.js';

/** Successes written in one statement at most (a bound on its size, not a wait). */
const MAX_BATCH = 500;

type Next = { status: DeliveryStatus; waitS: number | null };

interface Queued {
  claim: Claim;
  outcome: Outcome;
  next: Next;
  resolve: (status: DeliveryStatus | null) => void;
  reject: (err: unknown) => void;
}

export class OutcomeRecorder {
  private queue: Queued[] = [];
  private writing = false;

  constructor(private readonly deliveries: Pick<DeliveriesStore, 'record' | 'recordSucceeded'>) {}

  /** Resolves with the delivery's new status (null: the claim was stale) once written. */
  record(claim: Claim, outcome: Outcome, next: Next): Promise<DeliveryStatus | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ claim, outcome, next, resolve, reject });
      if (!this.writing) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const head = this.queue[0]!;
        if (!succeeded(head)) {
          this.queue.shift();
          await this.deliveries.record(head.claim, head.outcome, head.next).then(head.resolve, head.reject);
          continue;
        }
        let n = 1;
        while (n < this.queue.length && n < MAX_BATCH && succeeded(this.queue[n]!)) n++;
        const run = this.queue.splice(0, n);
        try {
          const moved = await this.deliveries.recordSucceeded(
            run.map((q) => ({
              claim: q.claim,
              statusCode: q.outcome.statusCode!,
              latencyMs: q.outcome.latencyMs,
            })),
          );
          for (const q of run) q.resolve(moved.has(q.claim.id) ? 'succeeded' : null);
        } catch (err) {
          for (const q of run) q.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

const succeeded = (q: Queued): boolean => q.next.status === 'succeeded' && q.outcome.statusCode !== null;
