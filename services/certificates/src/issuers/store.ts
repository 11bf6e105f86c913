// The read model of issuer profiles: the only SQL of the issuers slice.
import type { Queryable } from '@hallmark/kit';
import type { IssuerRecord } from './domain.js';

interface Row {
  enterprise_id: string;
  display_name: string;
  website: string;
  domain_verified: boolean;
  logo_sha256: string | null;
  logo_width: number;
  logo_height: number;
  indexable: boolean;
  as_of: Date;
}

const toRecord = (r: Row): IssuerRecord => ({
  enterpriseId: r.enterprise_id,
  displayName: r.display_name,
  website: r.website,
  domainVerified: r.domain_verified,
  logo: r.logo_sha256 ? { sha256: r.logo_sha256, width: r.logo_width, height: r.logo_height } : null,
  indexable: r.indexable,
  asOf: r.as_of,
});

export async function findIssuer(q: Queryable, enterpriseId: string): Promise<IssuerRecord | null> {
  const { rows } = await q.query<Row>('SELECT * FROM issuer_profiles WHERE enterprise_id = $1', [
    enterpriseId,
  ]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Keeps `p` unless a newer announcement is already kept (events may arrive out of order). */
export async function keepIssuer(q: Queryable, p: IssuerRecord): Promise<void> {
  await q.query(
    `INSERT INTO issuer_profiles (enterprise_id, display_name, website, domain_verified, logo_sha256,
       logo_width, logo_height, indexable, as_of)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (enterprise_id) DO UPDATE SET display_name = EXCLUDED.display_name,
       website = EXCLUDED.website, domain_verified = EXCLUDED.domain_verified,
       logo_sha256 = EXCLUDED.logo_sha256, logo_width = EXCLUDED.logo_width,
       logo_height = EXCLUDED.logo_height, indexable = EXCLUDED.indexable, as_of = EXCLUDED.as_of
     WHERE issuer_profiles.as_of <= EXCLUDED.as_of`,
    [
      p.enterpriseId,
      p.displayName,
      p.website,
      p.domainVerified,
      p.logo?.sha256 ?? null,
      p.logo?.width ?? 0,
      p.logo?.height ?? 0,
      p.indexable,
      p.asOf,
    ],
  );
}
