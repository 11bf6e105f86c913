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
  /** Counts by window (its key prefix), then by subject: both strings a request reuses (a
   * cached key's id, a planned window's prefix), so a lookup never hashes a new string. */
  private readonly counts = new Map<string, Map<string, { value: number; endsAt: number }>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Takes one point for `subject` from the window `window` (its prefix) of `durationSec`. */
  take(window: string, subject: string, durationSec: number, now = this.now()): WindowCount {
    let bySubject = this.counts.get(window);
    if (!bySubject) this.counts.set(window, (bySubject = new Map()));
    const entry = bySubject.get(subject);
    if (entry && entry.endsAt > now) {
      entry.value++;
      return { consumed: entry.value, msBeforeNext: entry.endsAt - now };
    }
    const durationMs = durationSec * 1000;
    bySubject.set(subject, { value: 1, endsAt: now + durationMs });
    return { consumed: 1, msBeforeNext: durationMs };
  }

  /** Windows counted now (ended ones until the next sweep included). */
  get size(): number {
    let n = 0;
    for (const bySubject of this.counts.values()) n += bySubject.size;
    return n;
  }

  sweep(now = this.now()): void {
    for (const [window, bySubject] of this.counts) {
      for (const [subject, entry] of bySubject) if (entry.endsAt <= now) bySubject.delete(subject);
      if (bySubject.size === 0) this.counts.delete(window);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
