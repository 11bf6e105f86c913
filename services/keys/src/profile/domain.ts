// Enterprise issuer profiles, pure rules: validating what an owner or admin sets, who may set
// it, where the domain proof lives and what a proof document must say. No I/O.
import { HallmarkError, invalidParam, missingParam } from '@hallmark/kit/errors';
import { hasInvisibleOrBidi, invisibleCharacterMessage } from '@hallmark/kit/text';
import type { Caller } from '../domain/access.js';

export const MAX_DISPLAY_NAME = 100;
export const MAX_URL = 2048;
/** Path of the proof document on the website's origin. */
export const PROOF_PATH = '/.well-known/hallmark-issuer.json';
/** Largest proof document read (a few fields of JSON). */
export const MAX_PROOF_BYTES = 16_384;

/** The logo as the certificates media store archived it (the pages show only this copy). */
export interface ArchivedLogo {
  sha256: string;
  width: number;
  height: number;
}

/** What an owner or admin sets, checked. */
export interface ProfileFields {
  displayName: string;
  website: string;
  logoUrl: string | null;
  /** Verify pages open to search engines (the enterprise opted in). */
  indexable: boolean;
}

/** What is saved: the fields and Hallmark's copy of `logoUrl` (null without a logo). */
export interface ProfileInput extends ProfileFields {
  logo: ArchivedLogo | null;
}

export interface ProfileRecord extends ProfileInput {
  enterpriseId: string;
  domainVerified: boolean;
  domainCheckedAt: Date;
  domainDetail: string;
  updatedAt: Date;
}

function httpsUrl(raw: string, param: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParam(param, `${param} must be an https URL.`);
  }
  if (url.protocol !== 'https:') throw invalidParam(param, `${param} must be an https URL.`);
  if (url.username || url.password) throw invalidParam(param, `${param} must not carry credentials.`);
  if (raw.length > MAX_URL) throw invalidParam(param, `${param} must be at most ${MAX_URL} characters.`);
  return url.toString();
}

/**
 * The profile as given, trimmed and checked; every problem names its parameter. Checked before
 * anything is fetched: a logo URL that is not https never reaches the media store.
 */
export function parseProfile(raw: {
  displayName: string;
  website: string;
  logoUrl: string | null;
  indexable?: boolean;
}): ProfileFields {
  const displayName = raw.displayName.trim();
  if (!displayName) throw missingParam('displayName');
  if (displayName.length > MAX_DISPLAY_NAME || /\p{Cc}/u.test(displayName)) {
    throw invalidParam('displayName', `displayName must be 1 to ${MAX_DISPLAY_NAME} printable characters.`);
  }
  // Shown publicly as who issued a certificate: no text-direction tricks, nothing invisible.
  if (hasInvisibleOrBidi(displayName))
    throw invalidParam('displayName', invisibleCharacterMessage('displayName'));
  if (!raw.website.trim()) throw missingParam('website');
  const website = httpsUrl(raw.website.trim(), 'website');
  const logo = raw.logoUrl?.trim() || null;
  const logoUrl = logo === null ? null : httpsUrl(logo, 'logoUrl');
  return { displayName, website, logoUrl, indexable: raw.indexable === true };
}

/** Only an enterprise's owners and admins (or keys carrying their authority) manage its profile. */
export function checkProfileManager(caller: Caller): void {
  if (caller.role !== 'owner' && caller.role !== 'admin') {
    throw new HallmarkError('insufficient_permissions', {
      message: "Only an enterprise's owners and admins manage its issuer profile.",
      extras: { required_permission: 'enterprise_admin' },
    });
  }
}

/** Where the website's owner publishes the proof: its origin (host and port), fixed path. */
export const proofUrl = (website: string): string => new URL(PROOF_PATH, new URL(website).origin).toString();

/**
 * Whether a proof document names `enterpriseId`: a JSON object whose `enterpriseId` (or
 * `enterprise_id`) is that id, or whose `enterpriseIds` array lists it. The reason when not.
 */
export function proofVerdict(body: string, enterpriseId: string): { verified: boolean; detail: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { verified: false, detail: `${PROOF_PATH} is not JSON.` };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    return { verified: false, detail: `${PROOF_PATH} is not a JSON object.` };
  }
  const d = doc as Record<string, unknown>;
  const named = [d.enterpriseId, d.enterprise_id, ...(Array.isArray(d.enterpriseIds) ? d.enterpriseIds : [])];
  if (named.includes(enterpriseId)) return { verified: true, detail: '' };
  return { verified: false, detail: `${PROOF_PATH} does not name this enterprise.` };
}

/**
 * The `enterprise_profile.updated` payload of a profile as it now stands: what the public
 * pages show of it (the logo's source URL and the proof's wording stay in keys). `as_of` is
 * the later of its save and its last proof check, so a reader keeps the newest of two events.
 */
export function publicProfileEvent(p: ProfileRecord) {
  const asOf = Math.max(p.updatedAt.getTime(), p.domainCheckedAt.getTime());
  return {
    object: {
      enterprise_id: p.enterpriseId,
      display_name: p.displayName,
      website: p.website,
      domain_verified: p.domainVerified,
      logo_sha256: p.logo?.sha256 ?? null,
      logo_width: p.logo?.width ?? 0,
      logo_height: p.logo?.height ?? 0,
      indexable: p.indexable,
      as_of: new Date(asOf).toISOString(),
    },
  };
}
