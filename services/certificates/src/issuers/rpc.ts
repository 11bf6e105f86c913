// The issuer of the public reads (GetPublicCertificate, VerifyCertificate, GetPublicVoucher,
// GetGiftByToken) in proto form, from the read model: one indexed read in this service's own
// database, never a call to keys.
import type { Queryable } from '@hallmark/kit';
import type { IssuerProfile } from '@hallmark/proto/certificates/v1/certificates';
import type { IssuerRecord } from './domain.js';
import { findIssuer } from './store.js';

/** The public issuer profile of an enterprise, or undefined when it has none. */
export type IssuerLookup = (enterpriseId: string) => Promise<IssuerProfile | undefined>;

export const issuerToProto = (i: IssuerRecord): IssuerProfile => ({
  display_name: i.displayName,
  website: i.website,
  domain_verified: i.domainVerified,
  logo_sha256: i.logo?.sha256,
  logo_width: i.logo?.width ?? 0,
  logo_height: i.logo?.height ?? 0,
  indexable: i.indexable,
});

export function issuerLookup(q: Queryable): IssuerLookup {
  return async (enterpriseId) => {
    const found = enterpriseId ? await findIssuer(q, enterpriseId) : null;
    return found ? issuerToProto(found) : undefined;
  };
}
