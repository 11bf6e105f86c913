// The credentials worker: issues the credentials of queued certificates — those just minted
// (queued in the relayer's confirming transaction) and, after the migration, every older one
// (the backfill) — in transactions of a few certificates each. Every replica may run it: the
// queue rows are taken with SKIP LOCKED and leave the queue in the transaction that stores
// their credentials, so each certificate gets exactly one, and a crash or stop mid-backfill
// loses nothing (the next pass takes what is left). Prompt after a mint: the mint worker
// wakes it after each of its passes (bootstrap.ts); otherwise it looks every interval.
import { IntervalWorker, type Logger } from '@hallmark/kit';
import type { CredentialService } from '../service.js';

/** Transactions per pass at most, so a long backfill still lets the worker stop promptly. */
const MAX_ROUNDS = 40;

export interface CredentialWorkerOptions {
  intervalMs: number;
  /**
   * Whether minting is busy (mints in flight, or one just confirmed). Signing a credential
   * costs more CPU than minting its certificate (JSON-LD canonicalisation), on the event loop
   * that serves MintBatch and confirms batches: while minting is busy the worker waits, so a
   * bulk job's credentials follow the job instead of slowing it (`pnpm bench bulk`).
   */
  mintsActive?: () => Promise<boolean>;
  /** While minting is busy, a certificate queued this long still gets one transaction an interval. */
  maxDeferMs?: number;
}

/** One pass of the worker: how many certificates got their credential. */
export async function credentialPass(
  service: CredentialService,
  o: Omit<CredentialWorkerOptions, 'intervalMs'> & { intervalMs?: number },
  /** When the last overdue transaction ran while minting was busy (kept by the worker). */
  state: { overdueAt: number } = { overdueAt: 0 },
): Promise<number> {
  let rounds = MAX_ROUNDS;
  if (o.mintsActive && (await o.mintsActive())) {
    // Woken after every mint pass: overdue ones get one transaction an interval, not a wake.
    if (Date.now() - state.overdueAt < (o.intervalMs ?? 0)) return 0;
    if (!(await service.queuedLongerThan(o.maxDeferMs ?? 60_000))) return 0;
    state.overdueAt = Date.now();
    rounds = 1;
  }
  let issued = 0;
  for (let round = 0; round < rounds; round++) {
    const n = await service.issuePass();
    if (n === 0) break;
    issued += n;
  }
  return issued;
}

export class CredentialWorker extends IntervalWorker {
  constructor(service: CredentialService, log: Logger, o: CredentialWorkerOptions) {
    const state = { overdueAt: 0 };
    super({ name: 'credentials worker', intervalMs: o.intervalMs, log }, async () => {
      const issued = await credentialPass(service, o, state);
      if (issued > 0) log.info({ issued }, 'credentials issued');
      return issued;
    });
  }
}
