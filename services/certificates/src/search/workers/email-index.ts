// The recipient e-mail's blind index (migration 3401), kept whole: rows written before the index
// existed get theirs, and after a rotation of HALLMARK_ENCRYPTION_KEYS every row's index is made
// again under the newest key (migration 3103 records the key the whole table was last indexed
// under), so search by e-mail keeps finding them once the old key is dropped. Runs at start
// (a rotation rolls the pods) and then every 10 minutes. The re-keying is recorded once no
// e-mail is encrypted under an older key any more (after the re-encryption, rotate-encryption-
// keys.md step 3), so rows an old pod wrote during the rollout are made again too. Idempotent and
// resumable: rows are walked by id and the update keeps a value a writer set meanwhile. A row it
// cannot decrypt (its key gone) is counted and passed over; the re-keying is then not recorded,
// so the next pass tries again.
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

/**
 * One pass over both tables: only rows without an index, or, when the newest key is not the
 * one recorded (a rotation, or never recorded), every row with an e-mail (`rekeyed`). Answers
 * how many rows got a new index and how many could not be read.
 */
export async function runEmailIndexBackfill(
  d: EmailIndexBackfillDeps,
): Promise<{ indexed: number; unreadable: number; rekeyed: boolean }> {
  const rekey = (await d.store.indexKeyId()) !== d.index.keyId;
  const tally = { indexed: 0, unreadable: 0, rekeyed: rekey };
  const pageSize = d.pageSize ?? 500;
  for (const table of TABLES) {
    let after = '';
    for (;;) {
      const rows = await d.store.emailRows(table, after, pageSize, rekey);
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
      tally.indexed += await d.store.setIndexes(table, indexed, rekey);
      if (rows.length < pageSize) break;
    }
  }
  // Recorded only when every row's index is under the newest key and no e-mail is encrypted under
  // an older one (a pod without the new key wrote it during the rollout, or the re-encryption
  // has not run yet: its index may be old too): the old key may be dropped after this. Until
  // then every pass walks the rows again.
  if (rekey && tally.unreadable === 0 && !(await d.store.emailsNotUnder(d.encryptor.currentKeyId))) {
    await d.store.recordIndexKeyId(d.index.keyId);
    d.log.info({ keyId: d.index.keyId, indexed: tally.indexed }, 'recipient e-mail index re-keyed');
  } else if (tally.unreadable) {
    d.log.warn(tally, 'recipient e-mail index: rows under a key no longer configured');
  } else if (tally.indexed) {
    d.log.info(tally, 'recipient e-mail index backfill');
  }
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
