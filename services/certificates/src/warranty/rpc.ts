// WarrantyService handlers: proto <-> service calls, nothing else.
import { scopeOf, type AsyncHandlers } from '@hallmark/kit';
import type { WarrantyServiceServer, WarrantyTemplate } from '@hallmark/proto/certificates/v1/warranty';
import { toProto } from '../rpc.js';
import type { CertificatesStore } from '../store.js';
import { warrantyView } from '../domain/warranty.js';
import { WarrantyService } from './service.js';
import type { WarrantyTemplateRecord } from './store.js';

function templateToProto(t: WarrantyTemplateRecord): WarrantyTemplate {
  return {
    id: t.id,
    name: t.name,
    fields_json: JSON.stringify(t.fields),
    created_at: t.createdAt.toISOString(),
    created: t.created,
  };
}

export function createWarrantyHandlers(deps: {
  certificates: CertificatesStore;
}): AsyncHandlers<WarrantyServiceServer> {
  const service = new WarrantyService(deps.certificates);
  return {
    async setWarranty(req) {
      const w = req.warranty;
      const { read, warranty, changed } = await service.setWarranty(
        scopeOf(req.principal),
        req.certificate_id,
        w && {
          period: w.period,
          type: w.type,
          startDate: w.start_date,
          endDate: w.end_date,
          coverage: w.coverage,
          exclusions: w.exclusions,
          claimProcess: w.claim_process,
          contactInfo: w.contact_info,
          termsUrl: w.terms_url,
        },
      );
      return {
        certificate: toProto(read),
        warranty_json: JSON.stringify(warrantyView(warranty)),
        changed,
      };
    },

    async initWarrantyTemplate(req) {
      return templateToProto(await service.initWarrantyTemplate(scopeOf(req.principal)));
    },

    async getWarrantyTemplate(req) {
      return templateToProto(await service.getWarrantyTemplate(scopeOf(req.principal), req.template_id));
    },
  };
}
