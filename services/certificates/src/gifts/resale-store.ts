// SQL of resale (docs/resale.md) beyond the gift rows it shares with gifts (./store.ts): the
// brand's policy (`resale_policies`, migration 3331), the brand's decision (one conditional
// UPDATE on a pending resale awaiting approval, so a decision, a claim, a cancel and the
// expiry never both win), and the lifecycle events, written in the caller's transaction.
import { recordEvents, transaction, type Pool, type Queryable } from '@hallmark/kit';
import type { EventType } from '@hallmark/kit/events';
import { EVENT_SOURCE, type Scope } from '../domain/certificate.js';
import { releaseHandover } from '../handover-store.js';
import type { GiftRecord } from './domain/gift.js';
import { resaleView } from './domain/resale.js';
import { fromRow, type GiftRow } from './rows.js';

type ResaleEvent = Extract<EventType, `certificate.resale_${string}`>;

/** The resale's events of `types`, each carrying the resale as it now stands. */
export async function recordResaleEvents(tx: Queryable, row: GiftRow, types: ResaleEvent[]): Promise<void> {
  const { rows } = await tx.query<{ token_id: string | null }>(
    'SELECT token_id FROM certificates WHERE id = $1',
    [row.certificate_id],
  );
  const tokenId = rows[0]?.token_id == null ? null : Number(rows[0].token_id);
  const object = resaleView(fromRow(row), tokenId);
  await recordEvents(
    tx,
    EVENT_SOURCE,
    // Every resale event has the one payload schema ({object: ResaleObject}).
    types.map((type) => ({
      type: type as 'certificate.resale_started',
      data: { object: { ...object } },
      enterpriseId: row.enterprise_id,
      livemode: row.livemode,
    })),
  );
}

export interface ResalePolicy {
  approvalRequired: boolean;
  updatedAt: Date | null;
}

export class ResaleStore {
  constructor(private readonly pool: Pool) {}

  async policy(scope: Pick<Scope, 'enterpriseId' | 'livemode'>): Promise<ResalePolicy> {
    const { rows } = await this.pool.query<{ approval_required: boolean; updated_at: Date }>(
      'SELECT approval_required, updated_at FROM resale_policies WHERE enterprise_id = $1 AND livemode = $2',
      [scope.enterpriseId, scope.livemode],
    );
    return { approvalRequired: rows[0]?.approval_required ?? false, updatedAt: rows[0]?.updated_at ?? null };
  }

  async setPolicy(scope: Scope, approvalRequired: boolean): Promise<ResalePolicy> {
    const { rows } = await this.pool.query<{ approval_required: boolean; updated_at: Date }>(
      `INSERT INTO resale_policies (enterprise_id, livemode, approval_required, updated_by)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (enterprise_id, livemode)
       DO UPDATE SET approval_required = $3, updated_by = $4, updated_at = now()
       RETURNING approval_required, updated_at`,
      [scope.enterpriseId, scope.livemode, approvalRequired, scope.actorId],
    );
    return { approvalRequired: rows[0]!.approval_required, updatedAt: rows[0]!.updated_at };
  }

  /**
   * The brand's decision on a pending resale awaiting it: approved (the claim link may now be
   * sent), or refused (the resale ends `revoked`, its hand-over hold given up, so the owner
   * keeps the certificate). Null when the resale was not awaiting a decision (any more).
   */
  async decide(
    scope: Scope,
    id: string,
    approve: boolean,
    reason: string | null,
  ): Promise<GiftRecord | null> {
    return transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<GiftRow>(
        `UPDATE gifts SET approval = $4, approval_reason = $5, approval_decided_by = $6,
                approval_decided_at = now(), updated_at = now(),
                status = CASE WHEN $4 = 'refused' THEN 'revoked' ELSE status END,
                revoked_at = CASE WHEN $4 = 'refused' THEN now() ELSE revoked_at END
          WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 AND kind = 'resale'
            AND status = 'pending' AND approval = 'requested' AND expires_at > now()
          RETURNING *`,
        [id, scope.enterpriseId, scope.livemode, approve ? 'approved' : 'refused', reason, scope.actorId],
      );
      const g = rows[0];
      if (!g) return null;
      if (!approve) await releaseHandover(tx, g.certificate_id, { kind: 'gift', id });
      await recordResaleEvents(tx, g, [
        approve ? 'certificate.resale_approved' : 'certificate.resale_refused',
      ]);
      return fromRow(g);
    });
  }
}
