// gRPC handlers of the issuer-profile RPCs of KeysService.
import type { AsyncHandlers } from '@hallmark/kit';
import type { EnterpriseProfile, KeysServiceServer } from '@hallmark/proto/keys/v1/keys';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { PrincipalInput } from '../domain/access.js';
import type { ProfileRecord } from './domain.js';
import type { ProfileService } from './service.js';

type ProfileHandlers = Pick<
  AsyncHandlers<KeysServiceServer>,
  'getEnterpriseProfile' | 'putEnterpriseProfile' | 'checkEnterpriseDomain' | 'getPublicEnterpriseProfile'
>;

export const toEnterpriseProfile = (p: ProfileRecord): EnterpriseProfile => ({
  enterprise_id: p.enterpriseId,
  display_name: p.displayName,
  website: p.website,
  logo_url: p.logoUrl ?? undefined,
  domain_status: p.domainVerified ? 'verified' : 'unverified',
  domain_checked_at: p.domainCheckedAt.toISOString(),
  domain_detail: p.domainDetail,
  updated_at: p.updatedAt.toISOString(),
  logo_sha256: p.logo?.sha256,
  logo_width: p.logo?.width ?? 0,
  logo_height: p.logo?.height ?? 0,
  indexable: p.indexable,
});

export function createProfileHandlers(
  service: ProfileService,
  principalOf: (p: Principal | undefined) => PrincipalInput | undefined,
): ProfileHandlers {
  return {
    async getEnterpriseProfile(req) {
      return toEnterpriseProfile(await service.get(principalOf(req.principal)));
    },
    async putEnterpriseProfile(req) {
      const saved = await service.put(principalOf(req.principal), {
        displayName: req.display_name,
        website: req.website,
        logoUrl: req.logo_url ?? null,
        indexable: req.indexable,
      });
      return toEnterpriseProfile(saved);
    },
    async checkEnterpriseDomain(req) {
      return toEnterpriseProfile(await service.checkDomain(principalOf(req.principal)));
    },
    async getPublicEnterpriseProfile(req) {
      return toEnterpriseProfile(await service.getPublic(req.enterprise_id));
    },
  };
}
