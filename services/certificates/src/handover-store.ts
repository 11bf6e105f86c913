// SQL of hand-over exclusivity (domain/handover.ts, migration 1801): the hold on a certificate
// row, taken and given up inside the caller's transaction. The take is one conditional UPDATE
// on rows locked in id order, so of any number of racing creates exactly one gets each
// certificate (a second waits for the first's commit, then sees its hold) and two bulk
// requests never deadlock.
import type { Queryable } from '@hallmark/kit';
import { isHandoverKind, type Handover, type HandoverKind } from './domain/handover.js';
import { reportedStolenRefused, stolenFlagOf } from './domain/stolen.js';

/**
 * Takes the hold of each certificate for its hand-over: free, lapsed (`handover_until`
 * passed) or already this hand-over's (then its lapse time is updated). With `holder`, only
 * while the certificate is still held by that address. Answers the certificates NOT taken,
 * each with its current holder (null when it is the address that differs, or it vanished).
 *
 * A certificate reported stolen or lost (docs/lost-and-stolen.md) is refused first, under the
 * same row lock: 409 `certificate_reported_stolen` (thrown; `param` names the caller's field).
 * Only the hand-overs that give a hold back (a claim undone, a gift released) and a brand's
 * recovery pass `evenIfReportedStolen`.
 */
export async function takeHandovers(
  tx: Queryable,
  kind: HandoverKind,
  holds: Array<{ certificateId: string; id: string; until: Date | null }>,
  opts: { holder?: string; evenIfReportedStolen?: boolean; param?: string; doing?: string } = {},
): Promise<Map<string, Handover | null>> {
  if (holds.length === 0) return new Map();
  const ids = holds.map((h) => h.certificateId);
  const { rows: locked } = await tx.query<{ id: string; stolen: unknown }>(
    'SELECT id, stolen FROM certificates WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  if (!opts.evenIfReportedStolen) {
    const flagged = locked.find((r) => r.stolen !== null);
    if (flagged) {
      throw reportedStolenRefused(flagged.id, stolenFlagOf(flagged.stolen)!, {
        param: opts.param,
        doing: opts.doing,
      });
    }
  }
  const { rows: taken } = await tx.query<{ id: string }>(
    `UPDATE certificates c SET handover_kind = $1, handover_id = h.ref, handover_until = h.until
       FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS h(cid, ref, until)
      WHERE c.id = h.cid
        AND (c.handover_kind IS NULL OR c.handover_until <= now()
             OR (c.handover_kind = $1 AND c.handover_id = h.ref))
        AND ($5::text IS NULL OR lower(c.holder_address) = lower($5))
      RETURNING c.id`,
    [kind, ids, holds.map((h) => h.id), holds.map((h) => h.until), opts.holder ?? null],
  );
  const got = new Set(taken.map((r) => r.id));
  const missed = ids.filter((id) => !got.has(id));
  const blocked = new Map<string, Handover | null>();
  if (missed.length === 0) return blocked;
  const current = await holdersOf(tx, missed);
  for (const id of missed) blocked.set(id, current.get(id) ?? null);
  return blocked;
}

/** Gives up the hold of a hand-over (a no-op when another one holds the certificate). */
export async function releaseHandover(tx: Queryable, certificateId: string, h: Handover): Promise<void> {
  await tx.query(
    `UPDATE certificates SET handover_kind = NULL, handover_id = NULL, handover_until = NULL
      WHERE id = $1 AND handover_kind = $2 AND handover_id = $3`,
    [certificateId, h.kind, h.id],
  );
}

/** Gives up the holds of hand-overs of one kind (e.g. the vouchers an order's void ended). */
export async function releaseHandovers(tx: Queryable, kind: HandoverKind, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(
    `UPDATE certificates SET handover_kind = NULL, handover_id = NULL, handover_until = NULL
      WHERE handover_kind = $1 AND handover_id = ANY($2::text[])`,
    [kind, ids],
  );
}

/** The live (not lapsed) hand-over of each certificate, where there is one. */
export async function holdersOf(db: Queryable, certificateIds: string[]): Promise<Map<string, Handover>> {
  const { rows } = await db.query<{ id: string; handover_kind: string; handover_id: string }>(
    `SELECT id, handover_kind, handover_id FROM certificates
      WHERE id = ANY($1::text[]) AND handover_kind IS NOT NULL
        AND (handover_until IS NULL OR handover_until > now())`,
    [certificateIds],
  );
  const out = new Map<string, Handover>();
  for (const r of rows)
    if (isHandoverKind(r.handover_kind)) out.set(r.id, { kind: r.handover_kind, id: r.handover_id });
  return out;
}
