// @hallmark/client against a whole running stack (test/e2e startTestStack): both kinds of
// credentials, both error surfaces as one HallmarkError, 429 retried after Retry-After,
// pagination across pages, a real signed webhook delivery verified by the helpers, and the
// built bundle imported from plain Node ESM. Run by packages/cli/test/e2e.test.ts, which
// starts one stack for the client's and the CLI's tests (a stack start is the costly part).
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { TestStack } from '@hallmark/e2e';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { png, zipOf } from '@hallmark/e2e/bulk';
import {
  downloadResults,
  Hallmark,
  HallmarkError,
  lists,
  verifyEnterpriseSignature,
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  watchJob,
  WebhookVerificationError,
  type RetryInfo,
} from '../src/index.js';
import type { Receiver } from './receiver.js';

/** The stack must trust the receiver's CA (NODE_EXTRA_CA_CERTS) and allow 127.0.0.1 outbound. */
export function clientSuite(env: () => { stack: TestStack; receiver: Receiver }) {
  let stack: TestStack;
  let receiver: Receiver;
  let session: string;
  let hm: Hallmark;

  beforeAll(async () => {
    ({ stack, receiver } = env());
    session = await stack.token();
    hm = new Hallmark({ baseUrl: stack.gatewayUrl, token: session });
  });

  async function testKey(permissions: string[]) {
    return hm.post('/api/v1/api-keys', { body: { name: 'client test', type: 'test', permissions } });
  }

  describe('auth', () => {
    it('a session token and an API key (Bearer on /api/v1, x-api-key on /api) both authenticate', async () => {
      const created = await hm.post('/api/v1/vouchers', {
        body: { code: 'AUTH0001', type: 'percentage', value: 10 },
      });
      expect(created).toMatchObject({ code: 'AUTH0001', status: 'active' });
      const key = await testKey(['transactions.read', 'billing.read']);
      expect(key.key).toMatch(/^pk_test_/);
      const byKey = new Hallmark({ baseUrl: stack.gatewayUrl, apiKey: key.key });
      // A test key sees test-mode data only: the session's (live) voucher is not in its list.
      expect((await byKey.get('/api/v1/vouchers')).vouchers).toEqual([]);
      const cost = await byKey.get('/api/billing/cost-preview/{count}', { params: { path: { count: 10 } } });
      expect(cost).toMatchObject({ success: true, data: { count: 10 } });
    });

    it('no credential and a wrong key are authentication_error with the request id', async () => {
      const none = new Hallmark({ baseUrl: stack.gatewayUrl });
      const e1 = await none.get('/api/v1/vouchers').catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(HallmarkError);
      expect(e1).toMatchObject({ type: 'authentication_error', code: 'missing_api_key', status: 401 });
      expect((e1 as HallmarkError).request_id).toMatch(/^req_/);
      const wrong = new Hallmark({ baseUrl: stack.gatewayUrl, apiKey: 'pk_test_' + 'x'.repeat(40) });
      await expect(wrong.get('/api/bulk-mint')).rejects.toMatchObject({
        type: 'authentication_error',
        code: 'invalid_api_key',
        status: 401,
      });
    });
  });

  describe('typed errors', () => {
    it('the versioned envelope becomes a HallmarkError with type, code, param and request_id', async () => {
      const err = (await hm
        .post('/api/v1/vouchers', { body: { code: 'AB', type: 'percentage', value: 10 } })
        .catch((e: unknown) => e)) as HallmarkError;
      expect(err).toBeInstanceOf(HallmarkError);
      expect(err).toMatchObject({
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param: 'code',
        status: 400,
      });
      expect(err.request_id).toMatch(/^req_/);
      expect(String(err)).toContain(err.request_id);
    });

    it("the unversioned surface's {success:false, error, code} becomes the same error, its type from the code", async () => {
      const err = (await hm
        .get('/api/bulk-mint/{jobId}', { params: { path: { jobId: 'job_000000000000000000000000' } } })
        .catch((e: unknown) => e)) as HallmarkError;
      expect(err).toBeInstanceOf(HallmarkError);
      expect(err).toMatchObject({ type: 'resource_error', code: 'resource_not_found', status: 404 });
      expect(err.request_id).toMatch(/^req_/);
      expect(err.body).toMatchObject({ success: false });
    });

    it('no answer at all is a connection_error', async () => {
      const offline = new Hallmark({ baseUrl: 'http://127.0.0.1:9', token: session, maxRetries: 0 });
      await expect(offline.get('/api/v1/vouchers')).rejects.toMatchObject({
        type: 'connection_error',
        status: 0,
      });
    });
  });

  describe('retries', () => {
    it('429 answers are retried after their Retry-After and every call ends 200', async () => {
      const key = await testKey(['transactions.read']);
      const retries: RetryInfo[] = [];
      const client = new Hallmark({
        baseUrl: stack.gatewayUrl,
        apiKey: key.key,
        maxRetries: 5,
        onRetry: (r) => retries.push(r),
      });
      await client.get('/api/v1/vouchers'); // warms the key's verification
      await new Promise((r) => setTimeout(r, 1100));
      const started = Date.now();
      // A test key's burst is 20 a second: 30 at once overrun it.
      const pages = await Promise.all(Array.from({ length: 30 }, () => client.get('/api/v1/vouchers')));
      expect(pages).toHaveLength(30);
      const limited = retries.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect(Math.min(...limited.map((r) => r.delayMs))).toBeGreaterThanOrEqual(1000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

      // Without retries the 429 is a rate_limit_error carrying retry_after.
      await new Promise((r) => setTimeout(r, 1100));
      const once = new Hallmark({ baseUrl: stack.gatewayUrl, apiKey: key.key, maxRetries: 0 });
      const settled = await Promise.allSettled(
        Array.from({ length: 30 }, () => once.get('/api/v1/vouchers')),
      );
      const refused = settled
        .filter((s) => s.status === 'rejected')
        .map((s) => (s as PromiseRejectedResult).reason);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]).toMatchObject({
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        status: 429,
      });
      expect((refused[0] as HallmarkError).retry_after).toBeGreaterThanOrEqual(1);
    });
  });

  describe('pagination', () => {
    it('an async iterator walks every page of a list, fetching page after page', async () => {
      const ent = await stack.token();
      const client = new Hallmark({ baseUrl: stack.gatewayUrl, token: ent });
      for (let i = 0; i < 7; i++) {
        await client.post('/api/v1/vouchers', {
          body: { code: `PAGE000${i}`, type: 'fixed_amount', value: 100 + i },
        });
      }
      const seen: string[] = [];
      for await (const v of lists(client).vouchers({ limit: 3 })) seen.push(v.code);
      expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `PAGE000${i}`));
      // Breaking out early stops fetching.
      let n = 0;
      for await (const _ of lists(client).vouchers({ limit: 3 })) if (++n === 2) break;
      expect(n).toBe(2);
    });
  });

  describe('webhook signatures', () => {
    it('a real delivery to a local receiver verifies with X-Service-Signature and Standard Webhooks; a changed body does not', async () => {
      const endpoint = await hm.post('/api/v1/webhooks', {
        body: { url: `${receiver.url}/hooks/hallmark`, events: ['transaction.completed'] },
      });
      const secret = endpoint.secret!;
      const sent = await hm.post('/api/v1/webhooks/{webhook_id}/test', {
        params: { path: { webhook_id: endpoint.id } },
        body: {},
      });
      const got = await receiver.waitFor((r) => r.path === '/hooks/hallmark');
      const event = verifyWebhook<{ id: string; type: string }>(got.body, got.headers, secret);
      expect(event.type).toBeTruthy();
      expect(sent).toMatchObject({ id: expect.any(String) });
      verifyServiceSignature(got.body, got.headers['x-service-signature'] as string, secret);
      verifyStandardWebhook(got.body, got.headers, secret);
      const tampered = Buffer.concat([got.body, Buffer.from(' ')]);
      expect(() =>
        verifyServiceSignature(tampered, got.headers['x-service-signature'] as string, secret),
      ).toThrow(WebhookVerificationError);
      expect(() => verifyStandardWebhook(tampered, got.headers, secret)).toThrow(WebhookVerificationError);
      expect(() =>
        verifyWebhook(got.body, got.headers, 'whsec_' + Buffer.alloc(32).toString('base64')),
      ).toThrow(WebhookVerificationError);
      // A replay ten minutes later is refused.
      expect(() =>
        verifyServiceSignature(got.body, got.headers['x-service-signature'] as string, secret, {
          nowSec: Date.now() / 1000 + 600,
        }),
      ).toThrow(/tolerance/);
    });

    it('creating a discount voucher is delivered to a versioned endpoint as discount_voucher.created, the voucher its object', async () => {
      const endpoint = await hm.post('/api/v1/webhooks', {
        body: { url: `${receiver.url}/hooks/discounts`, events: ['discount_voucher.created'] },
      });
      const voucher = await hm.post('/api/v1/vouchers', {
        body: { code: 'HOOKED01', type: 'fixed_amount', value: 700 },
      });
      const got = await receiver.waitFor((r) => r.path === '/hooks/discounts');
      const event = verifyWebhook<{ type: string; data: { object: Record<string, unknown> } }>(
        got.body,
        got.headers,
        endpoint.secret!,
      );
      expect(event.type).toBe('discount_voucher.created');
      expect(event.data.object).toMatchObject({
        id: voucher.id,
        code: 'HOOKED01',
        type: 'fixed_amount',
        value: 700,
      });
    });

    it('X-Webhook-Signature (enterprise subscriptions) is the hex HMAC of the body', () => {
      const secret = 'a'.repeat(64);
      const body = JSON.stringify({ event: 'bulk.job.completed', jobId: 'job_1' });
      const sig = createHmac('sha256', secret).update(body).digest('hex');
      expect(() => verifyEnterpriseSignature(body, sig, secret)).not.toThrow();
      expect(verifyWebhook(body, { 'X-Webhook-Signature': sig }, secret)).toMatchObject({ jobId: 'job_1' });
      expect(() => verifyEnterpriseSignature(body + ' ', sig, secret)).toThrow(WebhookVerificationError);
    });
  });

  describe('downloads', () => {
    it('downloadResults answers the results file as a stream with its name; a ZIP has no size before its end', async () => {
      const csv = [
        'name,description,category,recipientEmail,imageFile',
        'Lamp,Brass,Lamps,ada@example.com,1.png',
      ].join('\n');
      const created = await hm.createBulkJob({
        csv: Buffer.from(csv),
        images: await zipOf([{ name: '1.png', data: png('download-1') }]),
      });
      let last;
      for await (const p of watchJob(hm, created.data.jobId, { intervalMs: 300 })) last = p;
      expect(last).toMatchObject({ status: 'completed', succeeded: 1 });
      const text = async (body: ReadableStream<Uint8Array>) =>
        Buffer.from(await new Response(body).arrayBuffer());

      const file = await downloadResults(hm, created.data.jobId, 'csv');
      expect(file.filename).toMatch(/\.csv$/);
      const bytes = await text(file.body);
      expect(bytes.toString('utf8')).toMatch(/^row,name,status,certificateId/);
      if (file.totalBytes !== undefined) expect(file.totalBytes).toBe(bytes.length);

      const zip = await downloadResults(hm, created.data.jobId, 'zip');
      expect(zip).toMatchObject({ totalBytes: undefined, filename: expect.stringMatching(/\.zip$/) });
      expect((await text(zip.body)).subarray(0, 2).toString('latin1')).toBe('PK');
    }, 120_000);
  });

  describe('plain Node ESM', () => {
    it("the built bundle runs the README's example (examples/quickstart.mjs) without TypeScript", () => {
      const dir = path.resolve(import.meta.dirname, '..');
      execFileSync(process.execPath, ['build.mjs'], { cwd: dir });
      const example = readFileSync(path.join(dir, 'examples', 'quickstart.mjs'), 'utf8').replace(
        "from '@hallmark/client'",
        `from ${JSON.stringify(path.join(dir, 'dist', 'index.js'))}`,
      );
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'hallmark-example-')), 'quickstart.mjs');
      writeFileSync(file, example);
      const out = execFileSync(process.execPath, [file], {
        env: { PATH: process.env.PATH, HALLMARK_BASE_URL: stack.gatewayUrl, HALLMARK_TOKEN: session },
        encoding: 'utf8',
      });
      expect(out).toMatch(/^created vouch_\w+ \(SPRING25\)$/m);
      expect(out).toContain('8000 with SPRING25 costs 6000');
      expect(out).toContain('active: SPRING25');
      expect(out).toMatch(/^404 resource_error resource_not_found req_\w+$/m);
    });
  });
}
