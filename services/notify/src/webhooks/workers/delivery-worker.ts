// The delivery worker: claims due attempts (SKIP LOCKED + lease, so any number of replicas
// share the work without sending an attempt twice), signs each at the moment it is sent,
// POSTs it and records the outcome. State lives in PostgreSQL only: a restart picks up
// every pending attempt at its persisted time; an attempt cut short by a crash is retried
// as the next attempt once its lease runs out. Woken by NOTIFY on new work, else polls.
// Each endpoint (or subscription) has at most `perEndpoint` attempts in flight, so a slow
// receiver holds a few slots while the rest keep serving everyone else (the claim skips it).
import { counter, gaugeFrom, histogram, PgListener, type Logger, type Pool } from '@hallmark/kit';
import type { Claim, DeliveriesStore, Outcome } from '../deliveries-store.js';
import { WAKE_CHANNEL } from '../deliveries-store.js';
import { nextAfter } from '../domain/schedule.js';
import { attemptHeaders } from '../domain/signing.js';
import { WEBHOOK_TIMEOUT_MS, type WebhookSender } from '../sender.js';
import { OutcomeRecorder } from './recorder.js';

export interface WorkerOptions {
  /** Seconds between attempts (HALLMARK_WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  /** Attempts in flight at once per process. */
  concurrency?: number;
  /** Attempts in flight at once per endpoint or subscription, over every replica. */
  perEndpoint?: number;
  /** Per-attempt budget (spec: 30 s); the lease is this plus a margin. */
  timeoutMs?: number;
  /** How long a claimed attempt stays invisible to other workers (default timeout + 15 s). */
  leaseMs?: number;
  pollIntervalMs?: number;
}

/** How long slots freed by answers wait, so that one claim fills them together. */
const FREED_SLOTS_WAIT_MS = 5;

/** Attempts in flight per endpoint by default (HALLMARK_WEBHOOK_ENDPOINT_CONCURRENCY). */
export const DEFAULT_PER_ENDPOINT = 10;

export class DeliveryWorker {
  private running = false;
  private loopDone: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private wake: (() => void) | null = null;
  /** Set while freed slots wait to be claimed for together. */
  private freedTimer: NodeJS.Timeout | null = null;
  /** Set by a NOTIFY that arrived while the loop was busy, so it is not lost. */
  private woken = false;
  private readonly listener: PgListener;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private unobserve: (() => void) | null = null;
  private readonly recorder: OutcomeRecorder;
  private readonly attempts = counter(
    'hallmark_webhook_delivery_attempts_total',
    'Webhook delivery attempts by outcome: succeeded, retry (another attempt scheduled), failed (last attempt)',
    ['outcome'],
    // Every outcome's series from the start: a first failure is an increase, not a new series.
    { known: [{ outcome: 'succeeded' }, { outcome: 'retry' }, { outcome: 'failed' }] },
  );
  /** The webhook-latency objective's measure: how long an event waits for its first attempt. */
  private readonly firstAttemptDelay = histogram(
    'hallmark_webhook_first_attempt_delay_seconds',
    'Seconds from a webhook delivery being created (the event fanned out) to its first attempt',
    [],
    { buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900] },
  );

  constructor(
    pool: Pool,
    private readonly deliveries: DeliveriesStore,
    private readonly sender: WebhookSender,
    private readonly log: Logger,
    private readonly opts: WorkerOptions,
  ) {
    this.concurrency = opts.concurrency ?? 64;
    this.perEndpoint = opts.perEndpoint ?? DEFAULT_PER_ENDPOINT;
    this.leaseMs = opts.leaseMs ?? (opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS) + 15_000;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.recorder = new OutcomeRecorder(deliveries);
    this.listener = new PgListener({ pool, channel: WAKE_CHANNEL, log, onNotify: () => this.poke() });
  }

  async start(): Promise<void> {
    this.running = true;
    this.unobserve = gaugeFrom(
      'hallmark_webhook_deliveries_backlog',
      'Webhook deliveries waiting for an attempt (state: pending, or due now)',
      ['state'],
      async () => {
        const b = await this.deliveries.backlog();
        return [
          { labels: { state: 'pending' }, value: b.pending },
          { labels: { state: 'due' }, value: b.due },
        ];
      },
      { shared: true },
    );
    await this.listener.start();
    this.loopDone = this.loop();
  }

  /** Stops claiming, lets attempts in flight finish and record (bounded by the timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.unobserve?.();
    this.wake?.();
    await this.loopDone;
    await Promise.allSettled([...this.inFlight]);
    if (this.freedTimer) clearTimeout(this.freedTimer);
    this.freedTimer = null;
    await this.listener.stop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          const claims = await this.deliveries.claimDue(free, this.leaseMs, this.perEndpoint);
          claimed = claims.length;
          for (const c of claims) this.track(this.attempt(c));
        } catch (err) {
          this.log.warn({ err }, 'webhook worker: claim failed; will retry');
        }
      }
      // More may be due right away while slots are left: a claim cut short by the
      // per-endpoint caps leaves other endpoints' rows for the next one.
      if (claimed > 0 && this.inFlight.size < this.concurrency) continue;
      if (this.woken && this.inFlight.size < this.concurrency) {
        this.woken = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollIntervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      this.woken = false;
    }
  }

  private poke(): void {
    this.woken = true;
    this.wake?.();
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      // A slot freed, of the process or of an endpoint at its cap: look for more work — once
      // for the slots freed within FREED_SLOTS_WAIT_MS, not once per slot. A claim per answer
      // cost the database more than the answers did when there was little to claim (events
      // arriving at a steady rate, each claim finding a row or none).
      this.freedTimer ??= setTimeout(() => {
        this.freedTimer = null;
        this.poke();
      }, FREED_SLOTS_WAIT_MS);
    });
  }

  private async attempt(c: Claim): Promise<void> {
    if (c.attempt === 1 && c.waitedMs !== undefined) this.firstAttemptDelay.observe(c.waitedMs / 1000);
    const outcome: Outcome = c.secretError
      ? { statusCode: null, latencyMs: 0, error: c.secretError }
      : await this.sender.post(
          c.url,
          c.body,
          attemptHeaders(c, c.kind === 'endpoint' ? 'versioned' : 'enterprise', new Date()),
        );
    for (let i = 0; ; i++) {
      try {
        const status = await this.recorder.record(
          c,
          outcome,
          nextAfter(this.opts.schedule, c, outcome.statusCode),
        );
        this.log.debug(
          { delivery: c.id, event_id: c.eventId, attempt: c.attempt, status, code: outcome.statusCode },
          'webhook attempt',
        );
        if (status) this.attempts.inc({ outcome: status === 'pending' ? 'retry' : status });
        if (status === 'failed')
          this.log.warn(
            { delivery: c.id, event_id: c.eventId, error: outcome.error },
            'webhook delivery failed',
          );
        return;
      } catch (err) {
        // The database is unreachable: keep trying; past the lease the attempt is re-made.
        if (i >= 5) {
          this.log.error({ err, delivery: c.id }, 'webhook worker: could not record an attempt');
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * 2 ** i));
      }
    }
  }
}
