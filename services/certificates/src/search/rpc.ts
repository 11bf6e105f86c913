// gRPC handlers of CertificateSearchService: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type {
  CertificateSearchServiceServer,
  CertificateSummary,
} from '@hallmark/proto/certificates/v1/search';
import { pageInfo } from '@hallmark/kit/page';
import type { SearchService } from './service.js';
import type { CertificateSummaryRecord } from './store.js';

export const summaryToProto = (c: CertificateSummaryRecord): CertificateSummary => ({
  id: c.id,
  name: c.name,
  status: c.status,
  token_id: c.tokenId === null ? undefined : Number(c.tokenId),
  gtin: c.gtin ?? undefined,
  serial: c.serial ?? undefined,
  reference_number: c.referenceNumber ?? undefined,
  created_at: c.createdAt.toISOString(),
  livemode: c.livemode,
});

export function createSearchHandlers(service: SearchService): AsyncHandlers<CertificateSearchServiceServer> {
  return {
    async searchCertificates(req) {
      const { certificates, page, total } = await service.search(scopeOf(req.principal), {
        reference_number: req.reference_number,
        product: req.product,
        email: req.email,
        page: req.page,
      });
      return { certificates: certificates.map(summaryToProto), page: pageInfo(page, total) };
    },
  };
}
