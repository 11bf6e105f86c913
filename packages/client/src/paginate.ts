// Async iterators over the API's page-numbered lists. Both shapes are read: the versioned
// `{<items>, pagination:{page, limit, total, total_pages}}` and the bulk list's
// `{success, data:{jobs, pagination:{page, limit, totalPages, totalItems}}}`. Pages are
// fetched one at a time as the loop asks for more; `limit` is the page size (max 100).
import type { Hallmark, Schemas } from './client.js';

export interface Page<T> {
  items: T[];
  totalPages: number;
}

/** Yields every item of every page that `fetchPage(page)` answers, from page 1. */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>): AsyncGenerator<T> {
  for (let page = 1; ; page++) {
    const { items, totalPages } = await fetchPage(page);
    yield* items;
    if (page >= totalPages || items.length === 0) return;
  }
}

type Query = { limit?: number };
const sized = <Q extends Query>(q: Q) => ({ ...q, limit: q.limit ?? 100 });

export const lists = (hm: Hallmark) => ({
  vouchers: (q: Query & { status?: 'active' | 'expired' | 'used' | 'inactive' } = {}) =>
    paginate<Schemas['Voucher']>(async (page) => {
      const r = await hm.get('/api/v1/vouchers', { params: { query: { ...sized(q), page } } });
      return { items: r.vouchers, totalPages: r.pagination.total_pages };
    }),
  webhooks: (q: Query = {}) =>
    paginate<Schemas['WebhookEndpoint']>(async (page) => {
      const r = await hm.get('/api/v1/webhooks', { params: { query: { ...sized(q), page } } as never });
      return { items: r.webhooks, totalPages: r.pagination.total_pages };
    }),
  webhookDeliveries: (webhookId: string, q: Query & { status?: 'pending' | 'succeeded' | 'failed' } = {}) =>
    paginate<Schemas['Delivery']>(async (page) => {
      const r = await hm.get('/api/v1/webhooks/{webhook_id}/deliveries', {
        params: { path: { webhook_id: webhookId }, query: { ...sized(q), page } },
      });
      return { items: r.deliveries, totalPages: r.pagination.total_pages };
    }),
  templates: (q: Query = {}) =>
    paginate<Schemas['Template']>(async (page) => {
      const r = await hm.get('/api/v1/templates', { params: { query: { ...sized(q), page } } as never });
      return { items: r.templates, totalPages: r.pagination.total_pages };
    }),
  bulkJobs: (q: Query & { status?: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled' } = {}) =>
    paginate<Schemas['CsvJob']>(async (page) => {
      const r = await hm.get('/api/bulk-mint', { params: { query: { ...sized(q), page } } });
      return { items: r.data.jobs, totalPages: r.data.pagination.totalPages };
    }),
});
