// The Redis store of the per-request rate-limit windows (plugins/rate-limit.ts with Redis),
// leased in blocks. A round trip to Redis per request was most of a keyed request's cost
// (bench gateway). Instead, when a request takes its point from Redis, it also takes a block
// of a window's next points for this gateway (a lease, at most a tenth of the window, never
// more than LEASE_MAX); the requests after it are admitted from the lease in this process,
// with no round trip, until the lease runs out or its window ends.
//
// Redis counts leased points as taken, so no window ever admits more than its limit across
// every replica: a lease can only make a replica refuse early, never admit extra. The bound:
// while R replicas serve one subject, up to (R − 1) × its block of a window's points may sit
// unused in other replicas' leases when this one is refused (a single replica is exact: it
// is refused only when it has used every point Redis counted). A window under 20 points
// takes no lease (block 0): every request of it is one atomic call, as before.
//
// A request is admitted only if every window has room, and a refused one takes nothing, from
// Redis or a lease. One call per subject at a time: requests that find a lease empty wait for
// the call in flight and take from the lease it brings before asking again.

/** A window as the store counts it: its counters' key prefix, limit, length and lease block. */
export interface LeasedWindow {
  prefix: string;
  points: number;
  durationSec: number;
  /** Points leased to this process per call beyond the request's own (0: none, exact). */
  block: number;
}

/** A window after the request: points left (as this process knows them) and ms to its end. */
export interface WindowState {
  remaining: number;
  msBeforeNext: number;
}

export interface LeaseAdmission {
  states: WindowState[];
  /** Index of the window that refused (the longest wait of those full), or -1: admitted. */
  refused: number;
}

/** The most points one call leases of a window (a tenth of it below ten times this). */
export const LEASE_MAX = 100;

/** A window's block: a tenth of it, at most LEASE_MAX; none below 20 points. */
export const leaseBlock = (points: number): number =>
  points < 20 ? 0 : Math.min(LEASE_MAX, Math.floor(points / 10));

/**
 * Every window of a request checked, then (all having room) taken, in one call and atomically.
 * KEYS: one counter per window, all of one subject (its `{…}` hash tag keeps them in one
 * Cluster slot). ARGV, per window i (4 each): points, seconds, need (1: the request's point
 * comes from Redis; 0: from this process's lease) and extra (points wanted for the lease).
 * Refused (a window needing its point is full): nothing taken. Admitted: each window takes
 * need + as much of extra as it has room for. Answers the refusing window's index (0:
 * admitted), then per window its count after, its ms left and the points it took.
 */
export const TAKE = `local n = #KEYS
local counts, ttls = {}, {}
local refused = 0
for i = 1, n do
  local count = tonumber(redis.call('get', KEYS[i]) or '0')
  local ttl = redis.call('pttl', KEYS[i])
  if ttl < 0 then
    count = 0
    ttl = 1000 * tonumber(ARGV[4 * i - 2])
  end
  counts[i] = count
  ttls[i] = ttl
  if tonumber(ARGV[4 * i - 1]) > 0 and count >= tonumber(ARGV[4 * i - 3]) and (refused == 0 or ttl > ttls[refused]) then
    refused = i
  end
end
local out = { refused }
for i = 1, n do
  local took = 0
  if refused == 0 then
    local need = tonumber(ARGV[4 * i - 1])
    took = need + math.max(0, math.min(tonumber(ARGV[4 * i]), tonumber(ARGV[4 * i - 3]) - counts[i] - need))
    if took > 0 then
      if counts[i] == 0 then
        redis.call('set', KEYS[i], took, 'PX', ttls[i])
        counts[i] = took
      else
        counts[i] = redis.call('incrby', KEYS[i], took)
      end
    end
  end
  out[#out + 1] = counts[i]
  out[#out + 1] = ttls[i]
  out[#out + 1] = took
end
return out`;

export type TakeScript = (numKeys: number, ...keysAndArgs: string[]) => Promise<number[]>;

/** A window's lease in this process: points left, Redis's count when last taken, its end. */
interface Lease {
  left: number;
  count: number;
  endsAt: number;
}

const SWEEP_MS = 10_000;

export class RedisLeases {
  /** Leases by window (key prefix), then subject: strings a request reuses, no new ones. */
  private readonly leases = new Map<string, Map<string, Lease>>();
  /** The call in flight per subject: requests that find a lease empty wait for it. */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly take: TakeScript,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * The request admitted from this process's leases when every window has a leased point
   * left (no call, no promise), else undefined: `admit` decides.
   */
  admitLocally(
    windows: readonly LeasedWindow[],
    subject: string,
    now = this.now(),
  ): LeaseAdmission | undefined {
    const held: Lease[] = new Array(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const lease = this.leases.get(windows[i]!.prefix)?.get(subject);
      if (!lease || lease.left < 1 || lease.endsAt <= now) return undefined;
      held[i] = lease;
    }
    const states: WindowState[] = new Array(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const lease = held[i]!;
      lease.left--;
      states[i] = {
        remaining: Math.max(windows[i]!.points - lease.count + lease.left, 0),
        msBeforeNext: lease.endsAt - now,
      };
    }
    return { states, refused: -1 };
  }

  /** The request admitted or refused: from the leases when they suffice, else by one call. */
  async admit(windows: readonly LeasedWindow[], subject: string): Promise<LeaseAdmission> {
    // No window leases (all under 20 points): one call per request, concurrent as before.
    if (windows.every((w) => w.block === 0)) return this.call(windows, subject);
    for (;;) {
      const local = this.admitLocally(windows, subject);
      if (local) return local;
      const flight = this.inFlight.get(subject);
      if (!flight) break;
      await flight.catch(() => undefined);
    }
    const call = this.call(windows, subject);
    this.inFlight.set(subject, call);
    try {
      return await call;
    } finally {
      if (this.inFlight.get(subject) === call) this.inFlight.delete(subject);
    }
  }

  /** One call: the request's point from Redis for each window without a leased one, leases topped up. */
  private async call(windows: readonly LeasedWindow[], subject: string): Promise<LeaseAdmission> {
    const sent = this.now();
    // The subject in braces: every key of one request in one Redis Cluster hash slot.
    const keys = windows.map((w) => `${w.prefix}:{${subject}}`);
    const args: string[] = [];
    const needs: number[] = [];
    for (const w of windows) {
      const lease = this.live(w.prefix, subject, sent);
      const left = lease?.left ?? 0;
      const need = left >= 1 ? 0 : 1;
      // Topped up to a block when under half one (the request's own point aside), so a
      // subject's windows run out together, not in turn.
      const extra = left < w.block / 2 ? w.block - left + (1 - need) : 0;
      needs.push(need);
      args.push(String(w.points), String(w.durationSec), String(need), String(Math.max(extra, 0)));
    }
    const raw = await this.take(keys.length, ...keys, ...args);
    const now = this.now();
    const refused = Number(raw[0]) - 1;
    const states: WindowState[] = new Array(windows.length);
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      const count = Number(raw[1 + 3 * i]);
      const ttl = Number(raw[2 + 3 * i]);
      const took = Number(raw[3 + 3 * i]);
      if (refused >= 0) {
        // Nothing taken: what this process knows of the window, its own lease included.
        const left = this.live(w.prefix, subject, now)?.left ?? 0;
        states[i] = { remaining: Math.max(w.points - count + left, 0), msBeforeNext: ttl };
        continue;
      }
      let lease = this.live(w.prefix, subject, now);
      // A window Redis (re)started with this take: a lease of an older one is void.
      if (!lease || (took > 0 && count === took)) lease = this.fresh(w.prefix, subject);
      lease.left += took - needs[i]!; // the request's own point is one of those taken
      if (needs[i] === 0) lease.left--; // …or comes from the lease
      lease.count = count;
      lease.endsAt = now + ttl;
      states[i] = { remaining: Math.max(w.points - count + lease.left, 0), msBeforeNext: ttl };
    }
    return { states, refused };
  }

  private live(prefix: string, subject: string, now: number): Lease | undefined {
    const lease = this.leases.get(prefix)?.get(subject);
    return lease && lease.endsAt > now ? lease : undefined;
  }

  private fresh(prefix: string, subject: string): Lease {
    let bySubject = this.leases.get(prefix);
    if (!bySubject) this.leases.set(prefix, (bySubject = new Map()));
    const lease: Lease = { left: 0, count: 0, endsAt: 0 };
    bySubject.set(subject, lease);
    return lease;
  }

  /** Leases held now (ended ones until the next sweep included). */
  get size(): number {
    let n = 0;
    for (const bySubject of this.leases.values()) n += bySubject.size;
    return n;
  }

  /** Drops the leases of ended windows: memory bounded by the subjects of the last hour. */
  sweep(now = this.now()): void {
    for (const [prefix, bySubject] of this.leases) {
      for (const [subject, lease] of bySubject) if (lease.endsAt <= now) bySubject.delete(subject);
      if (bySubject.size === 0) this.leases.delete(prefix);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
