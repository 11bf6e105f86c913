// All SQL of proof-of-ownership links (`ownership_links`, migration 3332). The token is stored
// only as its hash; a link's proof is read against the certificate row at read time.
import { notFound, type Pool } from '@hallmark/kit';
import type { Scope } from '../domain/certificate.js';
import type { OwnershipLinkRecord } from './domain.js';

interface LinkRow {
  id: string;
  enterprise_id: string;
  livemode: boolean;
  certificate_id: string;
  owner_id: string;
  holder_address: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

const fromRow = (r: LinkRow): OwnershipLinkRecord => ({
  id: r.id,
  enterpriseId: r.enterprise_id,
  livemode: r.livemode,
  certificateId: r.certificate_id,
  ownerId: r.owner_id,
  holderAddress: r.holder_address,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  createdAt: r.created_at,
});

export class OwnershipStore {
  constructor(private readonly pool: Pool) {}

  async create(
    scope: Scope,
    link: { id: string; certificateId: string; holderAddress: string; tokenHash: string; ttlHours: number },
  ): Promise<OwnershipLinkRecord> {
    const { rows } = await this.pool.query<LinkRow>(
      `INSERT INTO ownership_links (id, enterprise_id, livemode, certificate_id, owner_id, holder_address,
                                    token_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(hours => $8)) RETURNING *`,
      [
        link.id,
        scope.enterpriseId,
        scope.livemode,
        link.certificateId,
        scope.actorId,
        link.holderAddress,
        link.tokenHash,
        link.ttlHours,
      ],
    );
    return fromRow(rows[0]!);
  }

  /** Revokes the owner's own link (idempotent); another owner's or enterprise's: not found. */
  async revoke(scope: Scope, id: string): Promise<OwnershipLinkRecord> {
    const { rows } = await this.pool.query<LinkRow>(
      `UPDATE ownership_links SET revoked_at = coalesce(revoked_at, now())
        WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 AND owner_id = $4 RETURNING *`,
      [id, scope.enterpriseId, scope.livemode, scope.actorId],
    );
    if (!rows[0]) throw notFound('ownership_link', id);
    return fromRow(rows[0]);
  }

  async byTokenHash(hash: string): Promise<OwnershipLinkRecord | null> {
    const { rows } = await this.pool.query<LinkRow>('SELECT * FROM ownership_links WHERE token_hash = $1', [
      hash,
    ]);
    return rows[0] ? fromRow(rows[0]) : null;
  }
}
