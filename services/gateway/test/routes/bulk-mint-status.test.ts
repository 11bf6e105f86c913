// How the gateway presents bulk jobs (GetJob, ListJobs, ExportJobStream): the CSV form's and
// the order form's status shapes, the list's defaults and filters, and the download's file
// name and bytes. (Each route's scope, refusals and error mapping: ./bulk-mint.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startHarness, type Harness } from './harness.js';
import { bulkJob, bulkVoucher } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const get = async (url: string, headers: Record<string, string> = h.keyWith(['bulk:mint'])) =>
  h.app.inject({ method: 'GET', url, headers });

describe('GET /api/bulk-mint/:jobId', () => {
  it('a CSV job is {success, data: job}; estimatedCompletionTime only while processing', async () => {
    h.answer('bulk', 'getJob', async () =>
      bulkJob({
        status: 'processing',
        processed_count: 2,
        success_count: 1,
        failed_count: 1,
        estimated_completion_time: '2025-01-01T00:10:00.000Z',
        errors: [{ row: 3, error: 'recipientEmail is not a valid e-mail' }],
      }),
    );
    const res = await get('/api/bulk-mint/job_A');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        jobId: 'job_A',
        status: 'processing',
        totalCount: 3,
        processedCount: 2,
        successCount: 1,
        failedCount: 1,
        failureCount: 1,
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:00:01.000Z',
        estimatedCompletionTime: '2025-01-01T00:10:00.000Z',
        errors: [{ row: 3, error: 'recipientEmail is not a valid e-mail' }],
      },
    });
    h.answer('bulk', 'getJob', async () =>
      bulkJob({
        status: 'failed',
        completed_at: '2025-01-01T00:20:00.000Z',
        estimated_completion_time: '2025-01-01T00:10:00.000Z',
        error: 'chain unavailable',
      }),
    );
    const failed = (await get('/api/bulk-mint/job_A')).json().data;
    expect(failed).toMatchObject({
      status: 'failed',
      completedAt: '2025-01-01T00:20:00.000Z',
      error: 'chain unavailable',
    });
    expect(failed).not.toHaveProperty('estimatedCompletionTime');
  });

  it('an order job is {success, job} with queued shown as pending, progress and voucher results', async () => {
    h.answer('bulk', 'getJob', async () =>
      bulkJob({ id: 'job_O', form: 'order', status: 'queued', total_count: 40, processed_count: 0 }),
    );
    expect((await get('/api/bulk-mint/job_O')).json()).toEqual({
      success: true,
      job: {
        id: 'job_O',
        status: 'pending',
        progress: { current: 0, total: 40, percentage: 0 },
        summary: { totalItems: 40, successCount: 0, failureCount: 0, failedCount: 0 },
        results: { vouchers: [], nextCursor: null },
        createdAt: '2025-01-01T00:00:00.000Z',
        completedAt: null,
      },
    });
    h.answer('bulk', 'getJob', async () =>
      bulkJob({
        id: 'job_O',
        form: 'order',
        status: 'completed',
        total_count: 3,
        processed_count: 3,
        success_count: 2,
        failed_count: 1,
        completed_at: '2025-01-01T00:05:00.000Z',
        processing_time_ms: 4200,
        vouchers: [bulkVoucher(1)],
      }),
    );
    const { job: done } = (await get('/api/bulk-mint/job_O')).json();
    expect(done).toMatchObject({
      status: 'completed',
      progress: { current: 3, total: 3, percentage: 100 },
      summary: { totalItems: 3, successCount: 2, failureCount: 1, failedCount: 1, processingTime: 4200 },
      completedAt: '2025-01-01T00:05:00.000Z',
    });
    expect(done.results.vouchers).toEqual([
      {
        id: 'v_1',
        url: 'https://h.test/v/v_1',
        referenceNumber: 'REF-1',
        metadata: { name: 'Lamp 1', sku: 'L1' },
        certificateId: 'cert_1',
        tokenId: 1,
        transactionHash: '0xabc',
        blockNumber: 7,
        lineItemGid: 'gid://shopify/LineItem/1',
      },
    ]);
    h.answer('bulk', 'getJob', async () =>
      bulkJob({ form: 'order', status: 'processing', total_count: 3, processed_count: 2 }),
    );
    expect((await get('/api/bulk-mint/job_O')).json().job.progress.percentage).toBe(66);
  });

  it('both job forms answer failedCount and failureCount (one number, either name) and a retried job its retriedAt', async () => {
    for (const form of ['csv', 'order'] as const) {
      h.answer('bulk', 'getJob', async () =>
        bulkJob({
          form,
          status: 'completed',
          total_count: 3,
          processed_count: 3,
          success_count: 1,
          failed_count: 2,
          retried_at: '2025-01-01T00:01:00.000Z',
          completed_at: '2025-01-01T00:01:38.000Z',
        }),
      );
      const body = (await get('/api/bulk-mint/job_R')).json();
      const counts = form === 'csv' ? body.data : body.job.summary;
      expect({ form, failedCount: counts.failedCount, failureCount: counts.failureCount }).toEqual({
        form,
        failedCount: 2,
        failureCount: 2,
      });
      expect((body.data ?? body.job).retriedAt).toBe('2025-01-01T00:01:00.000Z');
    }
  });
});

describe('GET /api/bulk-mint', () => {
  it('defaults to page 1, limit 20, all statuses, and shapes jobs and pagination', async () => {
    h.answer('bulk', 'listJobs', async () => ({
      jobs: [
        bulkJob(),
        bulkJob({ id: 'job_B', status: 'completed', completed_at: '2025-01-02T00:00:00.000Z' }),
      ],
      page: { page: 1, limit: 20, total: 2, total_pages: 1 },
    }));
    const res = await get('/api/bulk-mint');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, totalItems: 2 });
    expect(body.data.jobs.map((j: { jobId: string }) => j.jobId)).toEqual(['job_A', 'job_B']);
    expect(body.data.jobs[1]).toMatchObject({
      status: 'completed',
      completedAt: '2025-01-02T00:00:00.000Z',
      errors: [],
    });
    expect(h.callsTo('bulk', 'listJobs')[0]).toMatchObject({ page: { page: 1, limit: 20 } });
    expect(h.callsTo('bulk', 'listJobs')[0].status).toBeUndefined();
  });

  it('passes the status filter', async () => {
    h.answer('bulk', 'listJobs', async () => ({
      jobs: [],
      page: { page: 3, limit: 100, total: 0, total_pages: 0 },
    }));
    expect((await get('/api/bulk-mint?status=failed&page=3&limit=100')).statusCode).toBe(200);
    expect(h.callsTo('bulk', 'listJobs')[0]).toMatchObject({
      status: 'failed',
      page: { page: 3, limit: 100 },
    });
  });

  it.each([
    ['status=done', 'status'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['page=x', 'page'],
  ])('refuses %s with 400 param %s, before any call', async (query, param) => {
    const res = await get(`/api/bulk-mint?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param });
    expect(h.calls).toEqual([]);
  });
});

describe('GET /api/bulk-mint/:jobId/download/:type', () => {
  it('a ZIP download keeps its bytes and type, and its file name is made header-safe', async () => {
    h.answer('bulk', 'exportJobStream', async () => [
      { content: Buffer.alloc(0), content_type: 'application/zip', filename: 'job_A "results".zip' },
      { content: Buffer.from('PK'), content_type: '', filename: '' },
      { content: Buffer.from('\x05\x06'), content_type: '', filename: '' },
    ]);
    const res = await get('/api/bulk-mint/job_A/download/zip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="job_A__results_.zip"');
    expect(res.rawPayload.equals(Buffer.from('PK\x05\x06'))).toBe(true);
    expect(h.callsTo('bulk', 'exportJobStream')[0]).toMatchObject({ job_id: 'job_A', format: 'zip' });
  });
});
