// The warranty use cases behind WarrantyService: set a certificate's warranty, and the
// enterprise's warranty template (created once, then read).
import { missingParam } from '@hallmark/kit';
import type { Scope } from '../domain/certificate.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import type { Warranty } from '../domain/warranty.js';
import { parseWarranty, type WarrantyInput } from './domain.js';
import { WarrantyStore, type WarrantyTemplateRecord } from './store.js';

export class WarrantyService {
  private readonly store: WarrantyStore;

  constructor(certificates: CertificatesStore) {
    this.store = new WarrantyStore(certificates.pool, certificates);
  }

  /** Validates and sets the warranty; `changed` is false when it was set to the same before. */
  async setWarranty(
    scope: Scope,
    certificateId: string,
    raw: WarrantyInput | undefined,
  ): Promise<{ read: CertificateRead; warranty: Warranty; changed: boolean }> {
    if (!certificateId) throw missingParam('certificate_id');
    if (!raw) throw missingParam('warranty');
    const warranty = parseWarranty(raw);
    const { read, changed } = await this.store.setWarranty(scope, certificateId, warranty);
    return { read, warranty, changed };
  }

  initWarrantyTemplate(scope: Scope): Promise<WarrantyTemplateRecord> {
    return this.store.initWarrantyTemplate(scope);
  }

  getWarrantyTemplate(scope: Scope, templateId: string): Promise<WarrantyTemplateRecord> {
    if (!templateId) throw missingParam('template_id');
    return this.store.getWarrantyTemplate(scope, templateId);
  }
}
