// The in-memory store of the per-request rate-limit windows (plugins/rate-limit.ts without
// Redis): fixed windows counted exactly as rate-limiter-flexible's RateLimiterMemory counts
// them (a window starts at its first point and lasts its duration; a point taken after it
// ended starts the next one), but synchronous. The limiter answered every point with a
// promise and armed a timer for every window it started (a keyed request takes three or
// four points); here a request's points cost a map read each, and ended windows are swept
// in one pass every SWEEP_MS, so memory stays bounded by the clients of the last hour.
// `admit` checks every window of a request before it counts any: a refused request is
// counted in none (it was charged to the minute window when the burst guard refused it).

/** A window's counter after a request: what `RateLimiterRes` told the hook. */
export interface WindowCount {
  consumed: number;
  /** Milliseconds until the window ends and its count restarts. */
  msBeforeNext: number;
}

/** A window as `admit` checks it: its counters' key prefix, its limit and its length. */
export interface WindowSpec {
  prefix: string;
  points: number;
  durationSec: number;
}

/** `admit`'s answer: each window's count with this request (if admitted) and time left. */
export interface Admission {
  counts: WindowCount[];
  /** Index of the window that refused (the longest wait of those full), or -1: admitted. */
  refused: number;
}

type Entry = { value: number; endsAt: number };

const SWEEP_MS = 10_000;

export class WindowCounters {
  /** Counts by window (its key prefix), then by subject: both strings a request reuses (a
   * cached key's id, a planned window's prefix), so a lookup never hashes a new string. */
  private readonly counts = new Map<string, Map<string, Entry>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * Admits one request of `subject` only if every window has room, and then counts it in
   * every window; a refused request is counted in none (and starts no window).
   */
  admit(windows: readonly WindowSpec[], subject: string, now = this.now()): Admission {
    const live: (Entry | undefined)[] = new Array(windows.length);
    let refused = -1;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      const entry = this.counts.get(w.prefix)?.get(subject);
      if (!entry || entry.endsAt <= now) continue;
      live[i] = entry;
      if (entry.value >= w.points && (refused < 0 || entry.endsAt > live[refused]!.endsAt)) refused = i;
    }
    const counts: WindowCount[] = new Array(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      let entry = live[i];
      if (refused < 0) {
        if (entry) entry.value++;
        else {
          let bySubject = this.counts.get(w.prefix);
          if (!bySubject) this.counts.set(w.prefix, (bySubject = new Map()));
          bySubject.set(subject, (entry = { value: 1, endsAt: now + w.durationSec * 1000 }));
        }
      }
      counts[i] = entry
        ? { consumed: entry.value, msBeforeNext: entry.endsAt - now }
        : { consumed: 0, msBeforeNext: w.durationSec * 1000 };
    }
    return { counts, refused };
  }

  /** Gives back one point of `subject`'s running window (a request it no longer charges). */
  refund(prefix: string, subject: string, now = this.now()): void {
    const entry = this.counts.get(prefix)?.get(subject);
    if (entry && entry.endsAt > now && entry.value > 0) entry.value--;
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
