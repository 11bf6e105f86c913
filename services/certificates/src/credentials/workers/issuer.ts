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

export class CredentialWorker extends IntervalWorker {
  /**
   * `mintsInFlight`: whether mint batches are waiting for the chain. Signing a credential costs
   * more CPU than minting its certificate (JSON-LD canonicalisation), and it runs on the event
   * loop that serves MintBatch and confirms batches; so while mints are in flight a pass signs
   * one transaction's worth and yields, and a bulk job's credentials follow the job instead of
   * slowing it (`pnpm bench bulk`). The backlog is issued at full pace once the mints are done.
   */
  constructor(
    service: CredentialService,
    log: Logger,
    intervalMs: number,
    mintsInFlight?: () => Promise<boolean>,
  ) {
    super({ name: 'credentials worker', intervalMs, log }, async () => {
      let issued = 0;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const n = await service.issuePass();
        if (n === 0) break;
        issued += n;
        if (mintsInFlight && (await mintsInFlight())) break;
      }
      if (issued > 0) log.info({ issued }, 'credentials issued');
      return issued;
    });
  }
}
