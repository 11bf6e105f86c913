// The relayer's window of transactions in flight: up to `width` items driven at once, the next
// taken in as soon as one ends or something new may have arrived (`wake`), not in rounds, so a
// signer keeps its transactions in flight while earlier ones wait for their confirmations.

export interface WindowOptions<T extends { id: string }> {
  width: number;
  /** Until when new items are taken in (the items in flight then finish); Infinity: always. */
  refillUntil: number;
  /** Up to `limit` items to drive, none of `except`. */
  next: (limit: number, except: string[]) => Promise<T[]>;
  /** Drives one item; true when it reached a final state, false when it was left waiting. */
  drive: (item: T) => Promise<boolean>;
  /** How long an item left waiting rests before it is taken in again. */
  restMs: number;
  /** Resolves when there may be new items (a wake, or the poll interval). */
  pause: () => Promise<void>;
}

/** Runs the window until nothing is in flight and nothing new comes; answers the final count. */
export async function runWindow<T extends { id: string }>(o: WindowOptions<T>): Promise<number> {
  const active = new Map<string, Promise<void>>();
  const resting = new Map<string, number>();
  let done = 0;
  for (let first = true; ; first = false) {
    if (active.size < o.width && (first || Date.now() < o.refillUntil)) {
      const now = Date.now();
      for (const [id, until] of resting) if (until <= now) resting.delete(id);
      for (const item of await o.next(o.width - active.size, [...active.keys(), ...resting.keys()])) {
        const run = o.drive(item).then((final) => {
          if (final) done++;
          else resting.set(item.id, Date.now() + o.restMs);
          active.delete(item.id);
        });
        active.set(item.id, run);
      }
    }
    if (active.size === 0) return done;
    await Promise.race([...active.values(), o.pause()]);
  }
}

/** A pause that ends after `ms` or at the next `wake()`, whichever is first. */
export class Waker {
  private wakeUp: (() => void) | null = null;

  constructor(private readonly ms: number) {}

  wake(): void {
    this.wakeUp?.();
  }

  pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.ms);
      const wakeUp = () => done();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = wakeUp;
    });
  }
}
