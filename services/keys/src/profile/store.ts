// Enterprise profiles: the only SQL of the profile slice.
import type { Queryable } from '@hallmark/kit';
import type { ProfileInput, ProfileRecord } from './domain.js';

interface ProfileRow {
  enterprise_id: string;
  display_name: string;
  website: string;
  logo_url: string | null;
  logo_sha256: string | null;
  logo_width: number;
  logo_height: number;
  indexable: boolean;
  domain_verified: boolean;
  domain_checked_at: Date;
  domain_detail: string;
  updated_at: Date;
}

const toRecord = (r: ProfileRow): ProfileRecord => ({
  enterpriseId: r.enterprise_id,
  displayName: r.display_name,
  website: r.website,
  logoUrl: r.logo_url,
  logo: r.logo_sha256 ? { sha256: r.logo_sha256, width: r.logo_width, height: r.logo_height } : null,
  indexable: r.indexable,
  domainVerified: r.domain_verified,
  domainCheckedAt: r.domain_checked_at,
  domainDetail: r.domain_detail,
  updatedAt: r.updated_at,
});

export async function findProfile(q: Queryable, enterpriseId: string): Promise<ProfileRecord | null> {
  const { rows } = await q.query<ProfileRow>('SELECT * FROM enterprise_profiles WHERE enterprise_id = $1', [
    enterpriseId,
  ]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export interface DomainState {
  verified: boolean;
  detail: string;
  checkedAt: Date;
}

/** Sets the profile and the proof's state of its website together. */
export async function upsertProfile(
  q: Queryable,
  enterpriseId: string,
  p: ProfileInput,
  domain: DomainState,
  now: Date,
): Promise<ProfileRecord> {
  const { rows } = await q.query<ProfileRow>(
    `INSERT INTO enterprise_profiles (enterprise_id, display_name, website, logo_url, domain_verified,
       domain_checked_at, domain_detail, updated_at, logo_sha256, logo_width, logo_height, indexable)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (enterprise_id) DO UPDATE SET display_name = EXCLUDED.display_name,
       website = EXCLUDED.website, logo_url = EXCLUDED.logo_url, domain_verified = EXCLUDED.domain_verified,
       logo_sha256 = EXCLUDED.logo_sha256, logo_width = EXCLUDED.logo_width,
       logo_height = EXCLUDED.logo_height, indexable = EXCLUDED.indexable,
       domain_checked_at = EXCLUDED.domain_checked_at, domain_detail = EXCLUDED.domain_detail,
       updated_at = EXCLUDED.updated_at
     RETURNING *`,
    [
      enterpriseId,
      p.displayName,
      p.website,
      p.logoUrl,
      domain.verified,
      domain.checkedAt,
      domain.detail,
      now,
      p.logo?.sha256 ?? null,
      p.logo?.width ?? 0,
      p.logo?.height ?? 0,
      p.indexable,
    ],
  );
  return toRecord(rows[0]!);
}

/** Records a re-check of the proof, unless the website changed since it was fetched. */
export async function setDomainState(
  q: Queryable,
  enterpriseId: string,
  website: string,
  domain: DomainState,
): Promise<ProfileRecord | null> {
  const { rows } = await q.query<ProfileRow>(
    `UPDATE enterprise_profiles SET domain_verified = $3, domain_detail = $4, domain_checked_at = $5
      WHERE enterprise_id = $1 AND website = $2 RETURNING *`,
    [enterpriseId, website, domain.verified, domain.detail, domain.checkedAt],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}
