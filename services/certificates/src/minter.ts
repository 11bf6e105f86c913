// The mint worker: drives the relayer over open chain submissions, at an interval and at
// once when MintBatch records a batch, a transfer or an allowlist request (wake). Only the
// replica holding the PostgreSQL advisory lock of the relayer's signer address signs and sends,
// so one signer has one nonce sequence however many replicas run; the others stand by and take
// over when the lock holder's session ends. Every other transaction of the relayer's key
// (transfers, allowlist writes) is sent by further passes of this same worker (`withPasses`).
import { IntervalWorker, type Logger, type Pool } from '@hallmark/kit';
import type { Relayer } from './chain/relayer.js';

export class MintWorker extends IntervalWorker {
  constructor(pool: Pool, relayer: Relayer, log: Logger, intervalMs: number) {
    super(
      {
        name: 'mint worker',
        intervalMs,
        log,
        pool,
        lockKey: `certificates-relayer:${relayer.address.toLowerCase()}`,
      },
      () => relayer.processOpen(),
    );
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
