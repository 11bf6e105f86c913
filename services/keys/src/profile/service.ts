// Enterprise issuer profiles: owners and admins set and read their enterprise's profile; the
// public pages read any enterprise's by id. The domain proof is checked on every save and on
// demand; its outcome (verified or not, why, when) is stored with the profile. A save with a
// logo has the certificates media store archive it, only once the caller is known to manage
// the profile (fail closed: nobody else makes Hallmark fetch a URL), and saves nothing when
// the logo is refused. Every write announces the profile as it now stands
// (`enterprise_profile.updated`, through the outbox in the same transaction): the public
// pages read the issuer from certificates' copy, never from here.
import { HallmarkError, newEvent, recordEvent, transaction, type Pool, type Queryable } from '@hallmark/kit';
import type { PrincipalInput } from '../domain/access.js';
import { loadCaller } from '../session-store.js';
import { checkProfileManager, parseProfile, publicProfileEvent, type ProfileRecord } from './domain.js';
import type { LogoArchive } from './logo-archive.js';
import type { ProofCheck } from './proof-fetch.js';
import { findProfile, setDomainState, upsertProfile } from './store.js';

const none = () =>
  new HallmarkError('resource_not_found', { message: 'This enterprise has no issuer profile yet.' });

export interface ProfileDeps {
  /** The domain proof's fetch (never throws: a failure is an unverified verdict). */
  checkProof: ProofCheck;
  /** The logo's archiving by the certificates media store (a refusal names `logoUrl`). */
  archiveLogo: LogoArchive;
  now?: () => Date;
}

export class ProfileService {
  private readonly now: () => Date;

  constructor(
    private readonly pool: Pool,
    private readonly deps: ProfileDeps,
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  private async manager(principal: PrincipalInput | undefined) {
    const caller = await loadCaller(this.pool, principal);
    checkProfileManager(caller);
    return caller;
  }

  async get(principal: PrincipalInput | undefined): Promise<ProfileRecord> {
    const caller = await this.manager(principal);
    return (await findProfile(this.pool, caller.enterpriseId)) ?? Promise.reject(none());
  }

  async put(
    principal: PrincipalInput | undefined,
    raw: Parameters<typeof parseProfile>[0],
  ): Promise<ProfileRecord> {
    const caller = await this.manager(principal);
    const fields = parseProfile(raw);
    // Both fetches at once; a refused logo fails the save before anything is written.
    const [logo, proof] = await Promise.all([
      fields.logoUrl ? this.deps.archiveLogo(fields.logoUrl) : null,
      this.deps.checkProof(fields.website, caller.enterpriseId),
    ]);
    const now = this.now();
    const domain = { ...proof, checkedAt: now };
    return transaction(this.pool, async (tx) =>
      announce(tx, await upsertProfile(tx, caller.enterpriseId, { ...fields, logo }, domain, now)),
    );
  }

  async checkDomain(principal: PrincipalInput | undefined): Promise<ProfileRecord> {
    const caller = await this.manager(principal);
    const profile = await findProfile(this.pool, caller.enterpriseId);
    if (!profile) throw none();
    const proof = await this.deps.checkProof(profile.website, caller.enterpriseId);
    const next = await transaction(this.pool, async (tx) => {
      const checked = await setDomainState(tx, caller.enterpriseId, profile.website, {
        ...proof,
        checkedAt: this.now(),
      });
      return checked && announce(tx, checked);
    });
    // The website changed while the proof was fetched: the newer save checked its own.
    return next ?? (await findProfile(this.pool, caller.enterpriseId)) ?? Promise.reject(none());
  }

  async getPublic(enterpriseId: string): Promise<ProfileRecord> {
    if (!/^ent_[0-9A-Za-z]{24}$/.test(enterpriseId)) throw none();
    return (await findProfile(this.pool, enterpriseId)) ?? Promise.reject(none());
  }
}

/** Records the profile's `enterprise_profile.updated` in `tx`; answers the profile. */
async function announce(tx: Queryable, p: ProfileRecord): Promise<ProfileRecord> {
  await recordEvent(tx, 'keys', newEvent('enterprise_profile.updated', publicProfileEvent(p), p));
  return p;
}
