// Readiness of a service process, checked rather than assumed: the gRPC health service's
// overall status ('' and every served service) is SERVING while the process's database
// answers a query, re-checked every interval. NATS is watched too but does not decide it: a
// state change and its event commit together in the outbox, which waits out a NATS outage
// and publishes after, so a backend without NATS still serves every call (taking it out of
// its Service would turn a NATS outage into an API outage). Each dependency's state is the
// gauge hallmark_dependency_up{dependency}, for operators (degraded, not down).
// Liveness is a separate health entry ("liveness") that stays SERVING while the process runs:
// a database outage takes the pod out of the load balancer, it does not restart it.
import type { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import type { Bus } from './bus.js';
import type { Pool } from './db.js';
import { gauge } from './metrics.js';

/** The health-service name Kubernetes' liveness (and startup) probe asks for. */
export const LIVENESS_SERVICE = 'liveness';

export interface ReadinessOptions {
  pool: Pool;
  bus: Bus;
  health: HealthImplementation;
  /** Health entries that follow readiness ('' and the served services). */
  services: string[];
  log: Logger;
  intervalMs?: number;
  /** Bound on each check (default 2000 ms). */
  timeoutMs?: number;
}

export interface ReadinessReport {
  database: boolean;
  nats: boolean;
}

function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** One check of the process's dependencies. */
export async function checkDependencies(
  pool: Pool,
  bus: Bus,
  timeoutMs = 2000,
): Promise<ReadinessReport & { errors: string[] }> {
  const errors: string[] = [];
  const [database, nats] = await Promise.all([
    within(timeoutMs, pool.query('SELECT 1')).then(
      () => true,
      (err: Error) => (errors.push(`database: ${err.message}`), false),
    ),
    (bus.nc.isClosed()
      ? Promise.reject(new Error('connection closed'))
      : within(timeoutMs, bus.nc.flush())
    ).then(
      () => true,
      (err: Error) => (errors.push(`nats: ${err.message}`), false),
    ),
  ]);
  return { database, nats, errors };
}

export interface Readiness {
  /** Runs one check now and applies it. */
  check(): Promise<ReadinessReport>;
  /** Marks everything NOT_SERVING for good (shutdown) and stops checking. */
  stop(): void;
}

export function startReadiness(opts: ReadinessOptions): Readiness {
  const timeoutMs = opts.timeoutMs ?? 2000;
  let ready = true;
  let stopped = false;
  let running: Promise<ReadinessReport> | null = null;
  const apply = (next: boolean) => {
    if (stopped) return;
    for (const svc of opts.services) opts.health.setStatus(svc, next ? 'SERVING' : 'NOT_SERVING');
    ready = next;
  };
  const up = gauge('hallmark_dependency_up', 'Whether a dependency answers (1) or not (0)', ['dependency']);
  let natsUp = true;
  const check = () =>
    (running ??= (async () => {
      try {
        const r = await checkDependencies(opts.pool, opts.bus, timeoutMs);
        up.set({ dependency: 'database' }, r.database ? 1 : 0);
        up.set({ dependency: 'nats' }, r.nats ? 1 : 0);
        const next = r.database;
        if (next !== ready) {
          if (next) opts.log.info('ready again: the database answers');
          else opts.log.warn({ problems: r.errors }, 'not ready: the database does not answer');
        }
        if (r.nats !== natsUp) {
          if (r.nats) opts.log.info('NATS answers again: the outbox publishes what waited');
          else
            opts.log.warn(
              { problems: r.errors },
              'degraded: NATS does not answer; still serving, events wait in the outbox',
            );
          natsUp = r.nats;
        }
        apply(next);
        return { database: r.database, nats: r.nats };
      } finally {
        running = null;
      }
    })());
  opts.health.setStatus(LIVENESS_SERVICE, 'SERVING');
  const timer = setInterval(() => void check(), opts.intervalMs ?? 5000);
  timer.unref();
  return {
    check,
    stop() {
      clearInterval(timer);
      apply(false);
      stopped = true;
    },
  };
}
