// POST /api/bulk-mint, the order form (application/json): the body goes to CreateOrderJob as
// received (bulk parses and validates it), with the Idempotency-Key; the gateway shapes the
// answer (a finished job's vouchers, a running job's poll URL, a reused key's 409).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { startHarness, type Harness } from './harness.js';
import { bulkJob, bulkVoucher } from './fixtures.js';

const MB = 1024 * 1024;
const ORDER = JSON.stringify({
  schemaVersion: '2025-09-01',
  metadata: [{ name: 'Lamp', description: 'Brass', imageUrl: 'https://i.test/l.png' }],
  externalContext: {
    source: 'shopify',
    shop: 's.myshopify.com',
    orderId: 'gid://shopify/Order/1',
    lineItems: [{ lineItemGid: 'gid://shopify/LineItem/1', quantity: 2 }],
  },
});
const IDEM = { 'idempotency-key': 's.myshopify.com#gid://shopify/Order/1#gid://shopify/LineItem/1#abc' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const postOrder = (body: string, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url: '/api/bulk-mint',
    payload: body,
    headers: { 'content-type': 'application/json', ...h.keyWith(['bulk:mint']), ...headers },
  });

describe('POST /api/bulk-mint', () => {
  it('needs an Idempotency-Key header (400 naming it, before the body reaches the service)', async () => {
    const res = await postOrder(ORDER);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'parameter_missing', param: 'Idempotency-Key' });
    expect(h.calls).toEqual([]);
  });

  it('passes the body byte for byte and the key; a finished job answers 201 with its vouchers', async () => {
    h.answer('bulk', 'createOrderJob', async () =>
      bulkJob({
        id: 'job_S',
        form: 'order',
        status: 'completed',
        total_count: 2,
        processed_count: 2,
        success_count: 2,
        vouchers: [bulkVoucher(1), bulkVoucher(2)],
      }),
    );
    const raw = `  ${ORDER}\n`;
    const res = await postOrder(raw, IDEM);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      jobId: 'job_S',
      status: 'completed',
      summary: { totalItems: 2, successCount: 2, failureCount: 0, failedCount: 0 },
      vouchers: [1, 2].map((i) => ({
        id: `v_${i}`,
        url: `https://h.test/v/v_${i}`,
        referenceNumber: `REF-${i}`,
        metadata: { name: `Lamp ${i}`, sku: 'L1' },
      })),
    });
    const [sent] = h.callsTo('bulk', 'createOrderJob');
    expect(sent.body_json).toBe(raw);
    expect(sent.idempotency_key).toBe(IDEM['idempotency-key']);
  });

  it('a job left running answers 201 pending with estimatedDuration and pollUrl', async () => {
    h.answer('bulk', 'createOrderJob', async () =>
      bulkJob({ id: 'job_P', form: 'order', status: 'queued', total_count: 40, estimated_duration_s: 12 }),
    );
    const res = await postOrder(ORDER, IDEM);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      jobId: 'job_P',
      status: 'pending',
      estimatedDuration: 12,
      pollUrl: '/api/bulk-mint/job_P',
    });
  });

  it('a reused Idempotency-Key is 409 {success:false, error, existingJobId, status}', async () => {
    h.answer('bulk', 'createOrderJob', async () => {
      throw new HallmarkError('resource_already_exists', {
        message: 'A job with this Idempotency-Key already exists.',
        extras: { existingJobId: 'job_E', status: 'queued' },
      });
    });
    const res = await postOrder(ORDER, IDEM);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      success: false,
      error: 'A job with this Idempotency-Key already exists.',
      existingJobId: 'job_E',
      status: 'pending',
    });
  });

  it('takes an order body far above the default body limit, refuses one above 32 MB, and an empty one', async () => {
    h.answer('bulk', 'createOrderJob', async () => bulkJob({ form: 'order', status: 'completed' }));
    const big = JSON.stringify({ schemaVersion: '2025-09-01', pad: 'x'.repeat(3 * MB) });
    expect((await postOrder(big, IDEM)).statusCode).toBe(201);
    expect(h.callsTo('bulk', 'createOrderJob')[0].body_json).toHaveLength(big.length);
    const huge = await postOrder(`"${'x'.repeat(32 * MB)}"`, IDEM);
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toMatchObject({ code: 'payload_too_large' });
    const empty = await postOrder('', IDEM);
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'malformed_json' });
    expect(h.callsTo('bulk', 'createOrderJob')).toHaveLength(1);
  });
});
