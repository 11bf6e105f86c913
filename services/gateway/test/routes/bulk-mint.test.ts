// routes/bulk-mint/: each route's scope, refusals and error mapping — jobs (create, poll, list,
// retry, cancel, download) and the CSV template. The forms of POST: ./bulk-mint-csv.test.ts and
// ./bulk-mint-order.test.ts; the status, list and download shapes: ./bulk-mint-status.test.ts;
// the retry budget and the OpenAPI document: ./bulk-mint-limits.test.ts. (Public media:
// ./media.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { bulkJob } from './fixtures.js';
import { expectMapped, expectRefusals, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const MINT = { scope: 'bulk:mint', wrongScope: 'bulk:retry' };

describe('POST /api/bulk-mint', () => {
  const order = { orderId: 'o_1', items: [{ name: 'Lamp' }] };
  const req = { method: 'POST' as const, url: '/api/bulk-mint', payload: order };

  it('is 401 without a credential, 403 without bulk:mint', async () => {
    await expectRefusals(h, req, h.keyWith(['bulk:retry']));
  });

  it("maps the bulk service's refusal of the order (400 naming the field) to the api envelope", async () => {
    const res = await expectMapped(
      h,
      ['bulk', 'createOrderJob'],
      new HallmarkError('parameter_invalid', { param: 'metadata[0].imageUrl' }),
      {
        ...req,
        headers: { ...h.session, 'idempotency-key': 'idem-2' },
      },
    );
    expect(res.json()).toMatchObject({ param: 'metadata[0].imageUrl' });
  });
});

describe('GET /api/bulk-mint/:jobId', () =>
  routeCase(() => h, 'bulk', {
    ...MINT,
    req: { method: 'GET', url: '/api/bulk-mint/job_A' },
    call: 'getJob',
    answer: () => bulkJob(),
    status: 200,
    shape: { success: true, data: { jobId: 'job_A', status: 'queued', totalCount: 3 } },
    sent: { job_id: 'job_A', include_vouchers: true },
    error: new HallmarkError('resource_not_found'),
  }));

describe('GET /api/bulk-mint/:jobId', () => {
  // The order form's results.vouchers in pages.
  const voucher = (i: number) => ({
    id: `v_${i}`,
    url: `https://h.test/v/v_${i}`,
    reference_number: `REF-${i}`,
    metadata_json: '{"name":"Lamp"}',
    certificate_id: `cert_${i}`,
    row: i,
    expires_at: '2025-02-01T00:00:00.000Z',
  });
  const orderJob = (over: object = {}) =>
    bulkJob({ form: 'order', status: 'completed', success_count: 3, processed_count: 3, ...over });

  it('asks for one page (1000 by default) and names the next page in results.nextCursor', async () => {
    h.answer('bulk', 'getJob', async () =>
      orderJob({ vouchers: [voucher(1), voucher(2)], next_vouchers_after: '1' }),
    );
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/bulk-mint/job_A?vouchersLimit=2',
      headers: h.keyWith(['bulk:mint']),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().job.results).toMatchObject({
      vouchers: [{ id: 'v_1' }, { id: 'v_2' }],
      nextCursor: '1',
    });
    expect(h.callsTo('bulk', 'getJob')[0]).toMatchObject({
      include_vouchers: true,
      vouchers_limit: 2,
      vouchers_after: '',
    });
    h.answer('bulk', 'getJob', async () => orderJob({ vouchers: [voucher(3)] }));
    const next = await h.app.inject({
      method: 'GET',
      url: '/api/bulk-mint/job_A?vouchersCursor=1',
      headers: h.keyWith(['bulk:mint']),
    });
    expect(next.json().job.results).toEqual({
      vouchers: [expect.objectContaining({ id: 'v_3' })],
      nextCursor: null,
    });
    expect(h.callsTo('bulk', 'getJob')[1]).toMatchObject({ vouchers_limit: 1000, vouchers_after: '1' });
    const tooMany = await h.app.inject({
      method: 'GET',
      url: '/api/bulk-mint/job_A?vouchersLimit=1001',
      headers: h.keyWith(['bulk:mint']),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ success: false, param: 'vouchersLimit' });
  });

  it('vouchers=all streams every voucher page by page inside the one status answer', async () => {
    h.answer('bulk', 'getJob', async () => orderJob());
    h.answer('bulk', 'streamJobVouchers', async () => [
      { vouchers: [voucher(1), voucher(2)] },
      { vouchers: [] },
      { vouchers: [voucher(3)] },
    ]);
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/bulk-mint/job_A?vouchers=all',
      headers: h.keyWith(['bulk:mint']),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(body).toMatchObject({ success: true, job: { id: 'job_A', status: 'completed' } });
    expect(body.job.results.vouchers.map((v: { id: string }) => v.id)).toEqual(['v_1', 'v_2', 'v_3']);
    expect(body.job.results.nextCursor).toBeNull();
    expect(h.callsTo('bulk', 'getJob')[0]).toMatchObject({ include_vouchers: false });
  });
});

describe('GET /api/bulk-mint', () =>
  routeCase(() => h, 'bulk', {
    ...MINT,
    req: { method: 'GET', url: '/api/bulk-mint?page=2&limit=5' },
    call: 'listJobs',
    answer: () => ({ jobs: [bulkJob()], page: { page: 2, limit: 5, total: 6, total_pages: 2 } }),
    status: 200,
    shape: {
      success: true,
      data: { jobs: [{ jobId: 'job_A' }], pagination: { page: 2, totalPages: 2, totalItems: 6 } },
    },
    sent: { page: { page: 2, limit: 5 } },
    bad: { url: '/api/bulk-mint?limit=101', param: 'limit' },
    error: new HallmarkError('service_unavailable'),
  }));

describe('POST /api/bulk-mint/:jobId/retry', () =>
  routeCase(() => h, 'bulk', {
    scope: 'bulk:retry',
    wrongScope: 'bulk:mint',
    req: { method: 'POST', url: '/api/bulk-mint/job_A/retry' },
    call: 'retryJob',
    answer: () => ({ job: bulkJob(), retried_count: 2, message: 'Retrying 2 items.' }),
    status: 200,
    shape: { success: true, data: { jobId: 'job_A', retriedCount: 2, message: 'Retrying 2 items.' } },
    sent: { job_id: 'job_A' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('PATCH /api/bulk-mint/:jobId/items/:row', () => {
  routeCase(() => h, 'bulk', {
    scope: 'bulk:retry',
    wrongScope: 'bulk:mint',
    req: {
      method: 'PATCH',
      url: '/api/bulk-mint/job_A/items/3',
      payload: { recipientEmail: 'ada@example.com', expiryDays: 30, recipientName: null },
    },
    call: 'fixItem',
    answer: () => ({ row: 3, name: 'Bag', status: 'failed', error: 'Corrected; not processed yet.' }),
    status: 200,
    shape: { success: true, data: { jobId: 'job_A', row: 3, name: 'Bag', status: 'failed' } },
    sent: {
      job_id: 'job_A',
      row: 3,
      fields_json: JSON.stringify({ recipientEmail: 'ada@example.com', expiryDays: 30, recipientName: null }),
    },
    bad: { url: '/api/bulk-mint/job_A/items/0', param: 'row' },
    error: new HallmarkError('parameter_invalid', { param: 'recipientEmail' }),
  });
});

describe('POST /api/bulk-mint/:jobId/cancel', () =>
  routeCase(() => h, 'bulk', {
    ...MINT,
    req: { method: 'POST', url: '/api/bulk-mint/job_A/cancel' },
    call: 'cancelJob',
    answer: () => bulkJob({ status: 'cancelled', processed_count: 1 }),
    status: 200,
    shape: {
      success: true,
      data: {
        jobId: 'job_A',
        status: 'cancelled',
        message: expect.stringContaining('cancelled'),
        processedCount: 1,
        totalCount: 3,
      },
    },
    sent: { job_id: 'job_A' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('GET /api/bulk-mint/:jobId/download/:type', () => {
  const req = { method: 'GET' as const, url: '/api/bulk-mint/job_A/download/csv' };

  it('sends the results as an attachment, never sniffed or cached', async () => {
    // ExportJobStream: the file's name first, then its bytes in chunks as the service makes them.
    h.answer('bulk', 'exportJobStream', async () => [
      { content: Buffer.alloc(0), content_type: 'text/csv', filename: 'x.csv' },
      { content: Buffer.from('row,name\n'), content_type: '', filename: '' },
      { content: Buffer.from('1,a\n'), content_type: '', filename: '' },
    ]);
    const res = await h.app.inject({ ...req, headers: h.keyWith(['bulk:mint']) });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('row,name\n1,a\n');
    expect(res.headers['content-disposition']).toContain('attachment');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(h.callsTo('bulk', 'exportJobStream')[0]).toMatchObject({ job_id: 'job_A', format: 'csv' });
  });

  it('refuses a type other than csv or zip with 400, before any call', async () => {
    const res = await h.app.inject({ ...req, url: '/api/bulk-mint/job_A/download/pdf', headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'type' });
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential, 403 without bulk:mint', async () => {
    await expectRefusals(h, req, h.keyWith(['bulk:retry']));
  });

  it("maps another enterprise's job (404) to the api envelope", async () => {
    await expectMapped(h, ['bulk', 'exportJobStream'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('GET /api/bulk-mint/template/csv', () => {
  it('sends the CSV template as an attachment without a credential', async () => {
    h.answer('bulk', 'csvTemplate', async () => ({
      content: Buffer.from('name,description\n'),
      content_type: 'text/csv; charset=utf-8',
      filename: 'bulk-mint-template.csv',
    }));
    const res = await h.app.inject({ method: 'GET', url: '/api/bulk-mint/template/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('name,description\n');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="bulk-mint-template.csv"');
  });

  it("maps the service's errors to the api envelope", async () => {
    await expectMapped(h, ['bulk', 'csvTemplate'], new HallmarkError('service_unavailable'), {
      method: 'GET',
      url: '/api/bulk-mint/template/csv',
      headers: {},
    });
  });
});
