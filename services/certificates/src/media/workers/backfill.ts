// The backfill of certificates issued before images were archived: their `imageUrl` is the
// merchant's and their metadata records the sha256 of the bytes fetched at issue. For each,
// the URL is fetched once (outbound guard); bytes that still hash to the recorded sha256 are
// archived exactly as they are (that hash is anchored on chain) and the certificate's verdict
// is `archived`; other bytes are `changed`, a dead URL `unavailable` — recorded and shown on
// the verify page, never silently replaced. Resumable: every certificate gets one verdict row,
// and a pass walks those without one by id, so a restart goes on where it stopped. Replicas
// may overlap: every write is idempotent (content-addressed objects, one verdict row).
import { IntervalWorker, type Logger } from '@hallmark/kit';
import { ImageFetchError } from '../fetch.js';
import { sha256Hex, type MediaService } from '../service.js';
import type { MediaStore } from '../store.js';

export interface BackfillDeps {
  store: MediaStore;
  media: MediaService;
  fetch: (url: string) => Promise<Buffer>;
  log: Logger;
  intervalMs: number;
  pageSize?: number;
}

export interface BackfillTally {
  archived: number;
  changed: number;
  unavailable: number;
}

/** One pass over every certificate without a verdict. */
export async function runBackfill(d: Omit<BackfillDeps, 'intervalMs'>): Promise<BackfillTally> {
  const tally: BackfillTally = { archived: 0, changed: 0, unavailable: 0 };
  let after = '';
  for (;;) {
    const page = await d.store.backfillCandidates(after, d.pageSize ?? 50);
    if (page.length === 0) return tally;
    for (const c of page) {
      after = c.certificateId;
      let bytes: Buffer;
      try {
        bytes = await d.fetch(c.imageUrl);
      } catch (err) {
        if (!(err instanceof ImageFetchError)) throw err;
        // The verdict (shown publicly) keeps the one customer-facing message; the cause is logged.
        d.log.info({ certificateId: c.certificateId, detail: err.detail }, 'media backfill: fetch failed');
        await d.store.recordVerdict(c.certificateId, 'unavailable', null, err.message);
        tally.unavailable++;
        continue;
      }
      const got = sha256Hex(bytes);
      if (got !== c.sha256.toLowerCase()) {
        await d.store.recordVerdict(
          c.certificateId,
          'changed',
          null,
          `the URL now serves bytes with sha256 ${got}`,
        );
        tally.changed++;
        continue;
      }
      try {
        await d.media.put(bytes, { exact: true });
      } catch (err) {
        await d.store.recordVerdict(c.certificateId, 'unavailable', null, (err as Error).message);
        tally.unavailable++;
        continue;
      }
      await d.store.recordVerdict(c.certificateId, 'archived', got, null);
      tally.archived++;
    }
  }
}

export class BackfillWorker extends IntervalWorker {
  constructor(d: BackfillDeps) {
    super({ name: 'media backfill', intervalMs: d.intervalMs, log: d.log }, async () => {
      const t = await runBackfill(d);
      if (t.archived + t.changed + t.unavailable > 0) d.log.info(t, 'media backfill pass');
    });
  }
}
