// certificate.updated: the outbox row for a change of a certificate's public record that has
// no chain event of its own (warranty, gift claimed, voucher claim and its undoing), written
// in the caller's transaction. Apart from store.ts so the slices that call it import no cycle.
import { recordEvents, type Queryable } from '@hallmark/kit';
import { EVENT_SOURCE, type ProvenanceKind } from './domain/certificate.js';

/** certificate.updated for `certificateId` (`change`: the provenance kind recorded). */
export async function recordCertificateUpdated(
  tx: Queryable,
  certificateId: string,
  change: ProvenanceKind,
): Promise<void> {
  const { rows } = await tx.query<{ token_id: string | null; enterprise_id: string; livemode: boolean }>(
    'SELECT token_id, enterprise_id, livemode FROM certificates WHERE id = $1',
    [certificateId],
  );
  const c = rows[0];
  if (!c) return;
  await recordEvents(tx, EVENT_SOURCE, [
    {
      type: 'certificate.updated' as const,
      data: {
        object: { id: certificateId, tokenId: c.token_id === null ? null : Number(c.token_id) },
        change,
      },
      enterpriseId: c.enterprise_id,
      livemode: c.livemode,
    },
  ]);
}
