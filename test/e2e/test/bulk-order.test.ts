// The JSON (order) form of bulk mint through the real gateway, on anvil and Restate: small
// orders minted within the request, large ones in the background, exactly one job per
// Idempotency-Key under concurrent duplicates, the enterprise event with the voucher map,
// retry of failed items, cancellation, scopes and the cost preview.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  idempotencyKeyOf,
  orderBody,
  serviceQuery,
  startImageServer,
  waitForJob,
  type ImageServer,
} from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';
import { createEnterpriseKey } from '../src/keys.js';

let stack: TestStack;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer(mkdtempSync(path.join(tmpdir(), 'hallmark-images-')));
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: {
      NODE_EXTRA_CA_CERTS: images.caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      HALLMARK_BULK_BATCH_SIZE: '100',
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await images?.close();
});

const newEnterprise = () => `ent_${Math.random().toString(36).slice(2).padEnd(24, 'x').slice(0, 24)}`;

async function post(auth: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  return stack.call('POST', '/api/bulk-mint', {
    auth,
    body,
    headers: { 'idempotency-key': key, ...headers },
  });
}

function withImages(body: ReturnType<typeof orderBody>, url: string) {
  for (const m of body.metadata as { imageUrl: string }[]) m.imageUrl = url;
  return body;
}

describe('order form', () => {
  it('mints an order of 5 items or fewer within the request and answers its vouchers', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    const body = withImages(
      orderBody(3, {
        lineItems: [
          { lineItemGid: 'gid://shopify/LineItem/11', quantity: 1 },
          { lineItemGid: 'gid://shopify/LineItem/12', quantity: 2 },
        ],
      }),
      `${images.url}/watch.png`,
    );
    const res = await post(auth, body, idempotencyKeyOf(body));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      status: 'completed',
      summary: { totalItems: 3, successCount: 3, failureCount: 0 },
    });
    expect(res.body.vouchers).toHaveLength(3);
    for (const v of res.body.vouchers) {
      expect(v.id).toMatch(/^v_[A-Za-z0-9]{24}$/);
      expect(v.url).toBe(`${stack.env.HALLMARK_PUBLIC_URL}/vouchers/${v.id}`);
      expect(v.metadata).toMatchObject({ name: 'Chronograph No. 7', sku: 'CHR-7' });
    }
    // The view page is live for each voucher.
    const page = await fetch(res.body.vouchers[0].url);
    expect(page.status).toBe(200);

    // The status lookup (JSON-form shape) shows the chain references.
    const job = await waitForJob(stack, auth, res.body.jobId);
    expect(job).toMatchObject({
      id: res.body.jobId,
      status: 'completed',
      progress: { current: 3, total: 3, percentage: 100 },
    });
    expect(job.results.vouchers[0].transactionHash).toMatch(/^0x[0-9a-f]{64}$/);

    // bulk.job.completed carries the voucher map keyed by line item.
    const [event] = await serviceQuery<{ payload: any }>(
      stack,
      'bulk',
      `SELECT payload FROM outbox WHERE type = 'bulk.job.completed' AND payload->'data'->>'jobId' = $1`,
      [res.body.jobId],
    );
    const data = event!.payload.data;
    expect(data).toMatchObject({
      status: 'completed',
      shop: body.externalContext.shop,
      orderId: body.externalContext.orderId,
      orderNumber: '1007',
      summary: { totalItems: 3, successCount: 3, failureCount: 0 },
    });
    expect(data.summary.processingTime).toBeGreaterThan(0);
    expect(data.voucher_map['gid://shopify/LineItem/11'].voucherIds).toHaveLength(1);
    expect(data.voucher_map['gid://shopify/LineItem/12'].voucherIds).toHaveLength(2);
    expect(data.voucher_all).toHaveLength(3);
    expect(data.results.transactionHash).toMatch(/^0x/);
  }, 120_000);

  it('runs a 200-item order in the background to 200 distinct minted certificates', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    const body = withImages(orderBody(200), `${images.url}/bulk.png`);
    const res = await post(auth, body, idempotencyKeyOf(body));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      status: 'pending',
      pollUrl: `/api/bulk-mint/${res.body.jobId}`,
    });
    expect(res.body.estimatedDuration).toBeGreaterThan(0);
    const job = await waitForJob(stack, auth, res.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.summary).toMatchObject({ totalItems: 200, successCount: 200, failureCount: 0 });
    const vouchers = job.results.vouchers as { id: string; tokenId: number; referenceNumber: string }[];
    expect(new Set(vouchers.map((v) => v.tokenId)).size).toBe(200);
    expect(new Set(vouchers.map((v) => v.referenceNumber)).size).toBe(200);
    // One image URL, fetched once for the whole job.
    expect(images.requests.filter((r) => r === '/bulk.png')).toHaveLength(1);
  }, 180_000);

  it('creates exactly one job for concurrent duplicates of an Idempotency-Key and answers the rest 409', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    const body = orderBody(8);
    const key = idempotencyKeyOf(body);
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(auth, body, key)));
    const created = replies.filter((r) => r.status === 201);
    const conflicts = replies.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(7);
    for (const c of conflicts) {
      expect(c.body).toMatchObject({ success: false, existingJobId: created[0]!.body.jobId });
      expect(typeof c.body.error).toBe('string');
      expect(typeof c.body.status).toBe('string');
    }
    const later = await post(auth, body, key);
    expect(later.status).toBe(409);
  }, 120_000);

  it.each([
    ['a wrong schemaVersion', (b: any) => (b.schemaVersion = '2024-01-01'), 'schemaVersion'],
    [
      'an http image',
      (b: any) => (b.metadata[0].imageUrl = 'http://x.example/a.png'),
      'metadata[0].imageUrl',
    ],
    ['a bad order id', (b: any) => (b.externalContext.orderId = '12345'), 'externalContext.orderId'],
    [
      'a zero quantity',
      (b: any) => (b.externalContext.lineItems[0].quantity = 0),
      'externalContext.lineItems[0].quantity',
    ],
    [
      'a count mismatch',
      (b: any) => (b.metadata = [b.metadata[0], b.metadata[0], b.metadata[0]]),
      'metadata',
    ],
  ])('refuses %s with a 400 naming the field', async (_what, mutate, param) => {
    const auth = await stack.token({ ent: newEnterprise() });
    const body = orderBody(2);
    const key = idempotencyKeyOf(body);
    mutate(body);
    const res = await post(auth, body, key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, param });
  });

  it('refuses a missing Idempotency-Key', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    const res = await stack.call('POST', '/api/bulk-mint', { auth, body: orderBody(1) });
    expect(res.status).toBe(400);
    expect(res.body.param).toBe('Idempotency-Key');
  });

  it('retries only the failed items of a failed job, once, and safely again', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    images.missing.add('/later.png');
    const body = withImages(orderBody(7), `${images.url}/later.png`);
    const res = await post(auth, body, idempotencyKeyOf(body));
    const failed = await waitForJob(stack, auth, res.body.jobId);
    expect(failed.status).toBe('failed');
    expect(failed.summary).toMatchObject({ successCount: 0, failureCount: 7 });
    // The image was asked for twice: the first attempt and the automatic retry.
    expect(images.requests.filter((r) => r === '/later.png')).toHaveLength(2);

    images.missing.delete('/later.png');
    const retry = await stack.call('POST', `/api/bulk-mint/${res.body.jobId}/retry`, { auth });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({ jobId: res.body.jobId, retriedCount: 7 });
    const done = await waitForJob(stack, auth, res.body.jobId);
    expect(done.summary).toMatchObject({ successCount: 7, failureCount: 0 });
    const again = await stack.call('POST', `/api/bulk-mint/${res.body.jobId}/retry`, { auth });
    expect(again.body.data.retriedCount).toBe(0);
  }, 180_000);

  it('cancels a running job: minted certificates stay, the rest is never minted, results stay downloadable', async () => {
    const ent = newEnterprise();
    const auth = await stack.token({ ent });
    const body = withImages(orderBody(2000), `${images.url}/cancel.png`);
    const res = await post(auth, body, idempotencyKeyOf(body));
    const jobId = res.body.jobId;
    // Wait for the first batch (of 100) to land, then cancel.
    for (let i = 0; i < 400; i++) {
      const [row] = await serviceQuery<{ success_count: number }>(
        stack,
        'bulk',
        'SELECT success_count FROM jobs WHERE id = $1',
        [jobId],
      );
      if (row && row.success_count > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const cancel = await stack.call('POST', `/api/bulk-mint/${jobId}/cancel`, { auth });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ jobId, status: 'cancelled', totalCount: 2000 });
    const job = await waitForJob(stack, auth, jobId);
    expect(job.status).toBe('cancelled');
    // Let in-flight batches settle, then compare: minted certificates = succeeded items < 2000.
    await new Promise((r) => setTimeout(r, 3000));
    const [counts] = await serviceQuery<{ success: number; cancelled: number }>(
      stack,
      'bulk',
      `SELECT count(*) FILTER (WHERE status = 'success')::int AS success,
              count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled FROM job_items WHERE job_id = $1`,
      [jobId],
    );
    expect(counts!.success).toBeGreaterThan(0);
    expect(counts!.cancelled).toBeGreaterThan(0);
    const [certs] = await serviceQuery<{ n: number }>(
      stack,
      'certificates',
      'SELECT count(*)::int AS n FROM certificates WHERE enterprise_id = $1',
      [ent],
    );
    expect(certs!.n).toBe(counts!.success);
    const csv = await fetch(`${stack.gatewayUrl}/api/bulk-mint/${jobId}/download/csv`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    expect(csv.status).toBe(200);
    expect((await csv.text()).trim().split(/\r?\n/)).toHaveLength(2001);
  }, 180_000);

  it('needs the bulk:mint scope for jobs and bulk:retry for retries', async () => {
    const ent = newEnterprise();
    const session = await stack.token({ ent });
    const minter = (await createEnterpriseKey(stack, session, { scopes: ['bulk:mint'] })).key;
    const reader = (await createEnterpriseKey(stack, session, { scopes: ['voucher:create'] })).key;
    const body = withImages(orderBody(1), `${images.url}/scoped.png`);
    expect(
      (
        await stack.call('POST', '/api/bulk-mint', {
          headers: { 'x-api-key': reader, 'idempotency-key': idempotencyKeyOf(body) },
          body,
        })
      ).status,
    ).toBe(403);
    const made = await stack.call('POST', '/api/bulk-mint', {
      headers: { 'x-api-key': minter, 'idempotency-key': idempotencyKeyOf(body) },
      body,
    });
    expect(made.status).toBe(201);
    const retry = await stack.call('POST', `/api/bulk-mint/${made.body.jobId}/retry`, {
      headers: { 'x-api-key': minter },
    });
    expect(retry.status).toBe(403);
    const list = await stack.call('GET', '/api/bulk-mint?limit=5', { headers: { 'x-api-key': minter } });
    expect(list.status).toBe(200);
    expect(list.body.data.pagination).toMatchObject({ page: 1, limit: 5, totalItems: 1, totalPages: 1 });
    // Another enterprise cannot see the job.
    const stranger = await stack.token({ ent: newEnterprise() });
    expect((await stack.call('GET', `/api/bulk-mint/${made.body.jobId}`, { auth: stranger })).status).toBe(
      404,
    );
  }, 120_000);

  it('previews the cost of a count and refuses an invalid one', async () => {
    const auth = await stack.token({ ent: newEnterprise() });
    const res = await stack.call('GET', '/api/billing/cost-preview/2500', { auth });
    expect(res.status).toBe(200);
    // This stack mints in batches of 100 (HALLMARK_BULK_BATCH_SIZE).
    expect(res.body.data).toMatchObject({ count: 2500, currency: 'USD', batches: 25 });
    expect(res.body.data.totalPrice).toBe(2500 * res.body.data.unitPrice);
    // ERC-2309 batches of 100 measure ≈ 958 gas per certificate (`pnpm bench contract-gas`); the
    // default fit (151 per certificate + 90,500 per batch) quotes 1,056
    expect(res.body.data.estimatedGas / 2500).toBeGreaterThan(950);
    expect(res.body.data.estimatedGas / 2500).toBeLessThan(1200);
    for (const bad of ['0', '-3', 'abc', '1.5', '50001']) {
      expect((await stack.call('GET', `/api/billing/cost-preview/${bad}`, { auth })).status).toBe(400);
    }
  });
});
