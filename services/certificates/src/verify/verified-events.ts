// document.verified, counted and emitted in batches: a verification that asks to be recorded
// (the gateway asks for the first view per certificate and viewer an hour, at most 60 a
// certificate an hour) adds to its certificate's count in memory, and every window one event
// per certificate viewed in it leaves through the outbox, all in one transaction: a burst of
// scans costs the database one statement a window, not an outbox row (and a NATS message and
// webhook delivery) per view. The event carries the window's count (`views`, of which
// `failed_views` failed) and the last verification's result. The cost: the counts of the window
// a crash interrupts are lost (stop() flushes them on a clean shutdown); a missed event is
// better than a flood, as the gateway's own limits already say.
import { counter, recordEvents, transaction, type Logger, type Pool } from '@hallmark/kit';
import { EVENT_SOURCE } from '../domain/certificate.js';

interface Tally {
  enterpriseId: string;
  livemode: boolean;
  views: number;
  failed: number;
  first: Date;
  last: Date;
  verified: boolean;
  failedChecks: string[];
}

export interface VerifiedView {
  certificateId: string;
  enterpriseId: string;
  livemode: boolean;
  verified: boolean;
  failedChecks: string[];
  at: Date;
}

const emitted = counter(
  'hallmark_verification_events_total',
  'document.verified: views counted, and events emitted for them (one per certificate per window)',
  ['kind'],
);

export class VerifiedEvents {
  private tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private flushing: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly opts: {
      pool: Pool;
      log: Logger;
      /** The window: how often the counts are emitted. */
      windowMs: number;
      /** Certificates counted before a window is emitted early (bounds the memory). */
      maxCertificates?: number;
    },
  ) {}

  /** Counts one recorded view. */
  count(v: VerifiedView): void {
    const t = this.tallies.get(v.certificateId);
    if (t) {
      t.views++;
      if (!v.verified) t.failed++;
      t.last = v.at;
      t.verified = v.verified;
      t.failedChecks = v.failedChecks;
    } else {
      this.tallies.set(v.certificateId, {
        enterpriseId: v.enterpriseId,
        livemode: v.livemode,
        views: 1,
        failed: v.verified ? 0 : 1,
        first: v.at,
        last: v.at,
        verified: v.verified,
        failedChecks: v.failedChecks,
      });
    }
    emitted.inc({ kind: 'view' });
    if (this.tallies.size >= (this.opts.maxCertificates ?? 50_000)) void this.flush();
  }

  /** Emits the window's counts (one event per certificate); answers how many events. */
  flush(): Promise<number> {
    this.flushing = this.flushing.then(() => this.emit());
    return this.flushing;
  }

  private async emit(): Promise<number> {
    if (this.tallies.size === 0) return 0;
    const window = this.tallies;
    this.tallies = new Map();
    try {
      await transaction(this.opts.pool, (tx) =>
        recordEvents(
          tx,
          EVENT_SOURCE,
          [...window].map(([id, t]) => ({
            type: 'document.verified' as const,
            data: {
              object: {
                id,
                verified_at: t.last.toISOString(),
                result: t.verified ? 'verified' : 'failed',
                failed_checks: t.failedChecks,
                views: t.views,
                failed_views: t.failed,
                first_verified_at: t.first.toISOString(),
              },
            },
            enterpriseId: t.enterpriseId,
            livemode: t.livemode,
          })),
        ),
      );
      emitted.inc({ kind: 'event' }, window.size);
      return window.size;
    } catch (err) {
      // Kept for the next window (merged with what it counted meanwhile).
      for (const [id, t] of window) {
        const now = this.tallies.get(id);
        this.tallies.set(
          id,
          now ? { ...now, views: now.views + t.views, failed: now.failed + t.failed, first: t.first } : t,
        );
      }
      this.opts.log.warn({ err, certificates: window.size }, 'document.verified: emitting failed; retried');
      return 0;
    }
  }

  async start(): Promise<void> {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.flush().finally(tick), this.opts.windowMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
