// The in-memory store of the per-request rate-limit windows (plugins/rate-limit.ts without
// Redis): fixed windows counted exactly as rate-limiter-flexible's RateLimiterMemory counts
// them (a window starts at its first point and lasts its duration; a point taken after it
// ended starts the next one), but synchronous. The limiter answered every point with a
// promise and armed a timer for every window it started (a keyed request takes three or
// four points); here a request's points cost a map read each, and ended windows are swept
// in one pass every SWEEP_MS, so memory stays bounded by the clients of the last hour.

/** A window's counter after one point: what `RateLimiterRes` told the hook. */
export interface WindowCount {
  consumed: number;
  /** Milliseconds until the window ends and its count restarts. */
  msBeforeNext: number;
}

const SWEEP_MS = 10_000;

export class WindowCounters {
  private readonly counts = new Map<string, { value: number; endsAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Takes one point from the window `id` (its prefix and subject) of `durationSec`. */
  take(id: string, durationSec: number, now = this.now()): WindowCount {
    const entry = this.counts.get(id);
    if (entry && entry.endsAt > now) {
      entry.value++;
      return { consumed: entry.value, msBeforeNext: entry.endsAt - now };
    }
    const durationMs = durationSec * 1000;
    this.counts.set(id, { value: 1, endsAt: now + durationMs });
    return { consumed: 1, msBeforeNext: durationMs };
  }

  /** Windows counted now (ended ones until the next sweep included). */
  get size(): number {
    return this.counts.size;
  }

  sweep(now = this.now()): void {
    for (const [id, entry] of this.counts) if (entry.endsAt <= now) this.counts.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
