// What a process does with an error nothing caught. Such an error means a bug left some
// state half-changed, so the process does not carry on: it logs the error once, as fatal,
// and exits with EXIT_UNHANDLED so its supervisor (Kubernetes, or `pnpm start`) starts a new
// one. The supervisor tells the new process how many restarts came before it
// (HALLMARK_PROCESS_RESTARTS), and it reports them as `hallmark_process_restarts_total`;
// under Kubernetes the kubelet's restart count says the same. Every error a client can
// provoke is answered inside its request (grpc/server.ts) and never reaches this guard.
import type { Logger } from 'pino';
import { counter } from './metrics.js';

/** The exit code of a process ended by an unhandled error (EX_SOFTWARE). */
export const EXIT_UNHANDLED = 70;

let guarded = false;

/** Logs an unhandled error or rejection as fatal and exits; counts earlier restarts. */
export function guardProcess(log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  const restarts = counter(
    'hallmark_process_restarts_total',
    'Times the supervisor restarted this process after it exited unexpectedly (HALLMARK_PROCESS_RESTARTS)',
  );
  const before = Number(env.HALLMARK_PROCESS_RESTARTS ?? 0);
  // Unlabelled: at 0 from the first scrape, not from the first restart.
  if (Number.isInteger(before) && before > 0) restarts.inc(before);
  if (guarded) return;
  guarded = true;
  const die = (err: unknown, origin: string) => {
    try {
      log.fatal({ err, origin }, 'unhandled error: exiting so that the process is restarted');
      log.flush?.();
    } finally {
      process.exit(EXIT_UNHANDLED);
    }
  };
  process.on('uncaughtException', (err, origin) => die(err, origin));
  process.on('unhandledRejection', (reason) => die(reason, 'unhandledRejection'));
}
