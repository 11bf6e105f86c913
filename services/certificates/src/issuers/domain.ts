// Issuer profiles, pure rules: what of keys' announcement the read model keeps, checked
// again on arrival (the bus is a boundary: a malformed announcement is dropped, never shown).
import { isId } from '@hallmark/kit/ids';
import type { EventData } from '@hallmark/kit/events';

/** An enterprise's public issuer profile as keys last announced it. */
export interface IssuerRecord {
  enterpriseId: string;
  displayName: string;
  website: string;
  domainVerified: boolean;
  logo: { sha256: string; width: number; height: number } | null;
  indexable: boolean;
  asOf: Date;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The record of an `enterprise_profile.updated`, or null when it is not one to show. */
export function issuerOfEvent(data: EventData<'enterprise_profile.updated'>): IssuerRecord | null {
  const o = data.object;
  const asOf = new Date(o.as_of);
  let website: URL;
  try {
    website = new URL(o.website);
  } catch {
    return null;
  }
  if (!isId('enterprise', o.enterprise_id) || website.protocol !== 'https:' || Number.isNaN(asOf.getTime()))
    return null;
  return {
    enterpriseId: o.enterprise_id,
    displayName: o.display_name,
    website: o.website,
    domainVerified: o.domain_verified,
    logo:
      o.logo_sha256 && SHA256.test(o.logo_sha256)
        ? { sha256: o.logo_sha256, width: Math.max(0, o.logo_width), height: Math.max(0, o.logo_height) }
        : null,
    indexable: o.indexable,
    asOf,
  };
}
