// WarrantyService handlers: proto <-> domain, nothing else.
import { missingParam, type AsyncHandlers } from '@hallmark/kit';
import type { WarrantyServiceServer, WarrantyTemplate } from '@hallmark/proto/certificates/v1/warranty';
import { scopeOf, toProto } from '../rpc.js';
import type { CertificatesStore } from '../store.js';
import { parseWarranty, warrantyView } from './domain.js';
import { WarrantyStore, type WarrantyTemplateRecord } from './store.js';

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
  const store = new WarrantyStore(deps.certificates.pool, deps.certificates);
  return {
    async setWarranty(req) {
      const scope = scopeOf(req.principal);
      if (!req.certificate_id) throw missingParam('certificate_id');
      const w = req.warranty;
      if (!w) throw missingParam('warranty');
      const warranty = parseWarranty({
        period: w.period,
        type: w.type,
        startDate: w.start_date,
        endDate: w.end_date,
        coverage: w.coverage,
        exclusions: w.exclusions,
        claimProcess: w.claim_process,
        contactInfo: w.contact_info,
        termsUrl: w.terms_url,
      });
      const { read, changed } = await store.setWarranty(scope, req.certificate_id, warranty);
      return {
        certificate: toProto(read),
        warranty_json: JSON.stringify(warrantyView(warranty)),
        changed,
      };
    },

    async initWarrantyTemplate(req) {
      return templateToProto(await store.initTemplate(scopeOf(req.principal)));
    },

    async getWarrantyTemplate(req) {
      if (!req.template_id) throw missingParam('template_id');
      return templateToProto(await store.getTemplate(scopeOf(req.principal), req.template_id));
    },
  };
}
