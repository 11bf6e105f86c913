// The backfill of the recipient e-mail's blind index (migration 3401) for voucher and gift
// rows written before it existed: each such row is decrypted once and its index set. Runs at
// start and then now and then (new rows are indexed as they are written, so after the first
// pass there is nothing left). Idempotent and resumable: it only takes rows without an index,
// walks them by id, and the update keeps an index another replica or writer set first. A row
// it cannot decrypt (its key gone) is counted and passed over; it is tried again next pass.
import { IntervalWorker, type Encryptor, type Logger, type Pool } from '@hallmark/kit';
import type { RecipientEmailIndex } from '../../domain/email-index.js';
import type { EmailTable, SearchStore } from '../store.js';

const TABLES: EmailTable[] = ['certificate_vouchers', 'gifts'];
/** Nothing is expected after the first pass; a rare look keeps an interrupted one going. */
const INTERVAL_MS = 10 * 60_000;

export interface EmailIndexBackfillDeps {
  store: SearchStore;
  encryptor: Encryptor;
  index: RecipientEmailIndex;
  log: Logger;
  pageSize?: number;
}

/** One pass over both tables: how many rows got their index, how many could not be read. */
export async function runEmailIndexBackfill(
  d: EmailIndexBackfillDeps,
): Promise<{ indexed: number; unreadable: number }> {
  const tally = { indexed: 0, unreadable: 0 };
  const pageSize = d.pageSize ?? 500;
  for (const table of TABLES) {
    let after = '';
    for (;;) {
      const rows = await d.store.unindexed(table, after, pageSize);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      const indexed: { id: string; hmac: string }[] = [];
      for (const r of rows) {
        try {
          indexed.push({ id: r.id, hmac: d.index.of(d.encryptor.decrypt(r.emailEnc)) });
        } catch {
          tally.unreadable++;
        }
      }
      tally.indexed += await d.store.setIndexes(table, indexed);
      if (rows.length < pageSize) break;
    }
  }
  if (tally.indexed || tally.unreadable) d.log.info(tally, 'recipient e-mail index backfill');
  return tally;
}

export const emailIndexBackfill = (d: EmailIndexBackfillDeps & { pool: Pool }) =>
  new IntervalWorker(
    {
      name: 'recipient e-mail index backfill',
      intervalMs: INTERVAL_MS,
      log: d.log,
      pool: d.pool,
      lockKey: 'certificates-email-index',
    },
    () => runEmailIndexBackfill(d),
  );
