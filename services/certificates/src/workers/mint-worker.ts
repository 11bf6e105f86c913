// The mint worker: drives one signer's relayer over open chain submissions, at an interval and
// at once when MintBatch records a batch, a transfer or an allowlist request (wake; a pass in
// progress takes the batch into its window). Only the replica holding the PostgreSQL advisory
// lock of the signer's address signs and sends, so one signer has one nonce sequence however
// many replicas run; the others stand by and take over when the lock holder's session ends.
// With N signers there is one worker per signer (`MintWorkers` wakes them all). Every other
// transaction of signer 1's key (transfers, allowlist writes) is sent by further passes of its
// worker (`withPasses`).
import { IntervalWorker, type Logger, type Pool } from '@hallmark/kit';
import type { Relayer } from '../chain/relayer.js';

export class MintWorker extends IntervalWorker {
  constructor(
    pool: Pool,
    private readonly relayer: Relayer,
    log: Logger,
    intervalMs: number,
  ) {
    super(
      {
        name: `mint worker ${relayer.address}`,
        intervalMs,
        log,
        pool,
        lockKey: `certificates-relayer:${relayer.address.toLowerCase()}`,
      },
      () => relayer.processOpen(),
    );
  }

  override wake(): void {
    super.wake();
    this.relayer.wake();
  }
}

/** The mint workers of all signers: a recorded batch wakes each (the first with room claims it). */
export class MintWorkers {
  constructor(readonly all: readonly MintWorker[]) {}

  wake(): void {
    for (const w of this.all) w.wake();
  }
}

/**
 * The relayer as the mint worker drives it: the open mint submissions first, then each further
 * pass (transfers, the certificate-voucher claim repair, allowlist writes) in order; the number
 * of items that became final.
 */
export function withPasses(relayer: Relayer, passes: ReadonlyArray<() => Promise<number>>): Relayer {
  const driven = Object.create(relayer) as Relayer;
  driven.processOpen = async () => {
    let done = await relayer.processOpen();
    for (const pass of passes) done += await pass();
    return done;
  };
  return driven;
}
