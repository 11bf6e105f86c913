// The verification slice assembled for main.ts from the config: the verifier (chain facts from
// the chain index), the window that counts recorded verifications into document.verified
// events, and the re-check of the index against the chain (when a chain is configured and the
// re-check is on).
import { IntervalWorker, type Logger, type Pool } from '@hallmark/kit';
import type { Chain } from '../chain/setup.js';
import type { Config } from '../config.js';
import type { CertificatesStore } from '../store.js';
import type { ImageCheckDeps } from './image.js';
import { Verifier } from './service.js';
import { VerifiedEvents } from './verified-events.js';
import { IndexRecheck } from './workers/recheck.js';

type VerifyConfig = Pick<
  Config,
  | 'HALLMARK_VERIFICATION_EVENT_WINDOW_MS'
  | 'HALLMARK_CHAIN_RECHECK_INTERVAL_MS'
  | 'HALLMARK_CHAIN_RECHECK_BATCH'
>;

export function verifySlice(o: {
  config: VerifyConfig;
  pool: Pool;
  log: Logger;
  store: CertificatesStore;
  chain: Chain | null | undefined;
  images?: ImageCheckDeps;
}) {
  const { config, pool, log, chain } = o;
  const events = new VerifiedEvents({ pool, log, windowMs: config.HALLMARK_VERIFICATION_EVENT_WINDOW_MS });
  const verifier = new Verifier({
    pool,
    store: o.store,
    chain: () => chain ?? null,
    images: o.images,
    events,
  });
  const recheck =
    chain && config.HALLMARK_CHAIN_RECHECK_INTERVAL_MS > 0
      ? new IntervalWorker(
          { name: 'chain index re-check', intervalMs: config.HALLMARK_CHAIN_RECHECK_INTERVAL_MS, log },
          () =>
            new IndexRecheck({ pool, chain, log, batchSize: config.HALLMARK_CHAIN_RECHECK_BATCH }).runOnce(),
        )
      : null;
  return { verifier, workers: [events, ...(recheck ? [recheck] : [])] };
}
