// SearchCertificates (issue 34): the query checked (./domain.ts), the e-mail turned into its
// blind-index candidates, and a page of the scope's matches from the store.
import { HallmarkError } from '@hallmark/kit';
import type { Scope } from '../domain/certificate.js';
import type { RecipientEmailIndex } from '../domain/email-index.js';
import { parsePage, type Page } from '@hallmark/kit/page';
import { parseSearch, type SearchInput } from './domain.js';
import type { CertificateSummaryRecord, SearchStore } from './store.js';

export interface SearchServiceDeps {
  store: SearchStore;
  /** Unset without HALLMARK_ENCRYPTION_KEYS: no e-mail is stored then, so none can be searched. */
  emailIndex: RecipientEmailIndex | null;
}

export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  async search(
    scope: Scope,
    input: SearchInput & { page?: { page?: number; limit?: number } },
  ): Promise<{ certificates: CertificateSummaryRecord[]; page: Page; total: number }> {
    const criteria = parseSearch(input);
    const page = parsePage(input.page);
    let emailIndexes: string[] | null = null;
    if (criteria.email) {
      if (!this.deps.emailIndex)
        throw new HallmarkError('service_unavailable', {
          message: 'Search by e-mail is unavailable: no encryption key is configured.',
        });
      emailIndexes = this.deps.emailIndex.candidates(criteria.email);
    }
    const { certificates, total } = await this.deps.store.search(
      scope,
      {
        referenceNumber: criteria.referenceNumber,
        gtin: criteria.gtin,
        namePattern: criteria.namePattern,
        emailIndexes,
      },
      page.page,
      page.limit,
    );
    return { certificates, page, total };
  }
}
