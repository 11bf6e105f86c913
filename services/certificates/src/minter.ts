// The mint worker: drives the relayer over open chain submissions, at an interval and at
// once when MintBatch records a batch (wake). Only the replica holding the PostgreSQL
// advisory lock of the relayer's signer address signs and sends, so one signer has one
// nonce sequence however many replicas run; the others stand by and take over when the
// lock holder's session ends.
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
