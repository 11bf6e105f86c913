// Developer experience on the real stack (issue 19, server side), run on the stack of a suite
// that already has anvil, Restate and HALLMARK_OUTBOUND_ALLOW_HOSTS=127.0.0.1 (bulk-csv), so it
// adds no stack start to CI: `listen()` from
// @hallmark/listen (what `hallmark listen --forward-to` runs) forwarding to a local plain-HTTP
// receiver the events a discount voucher redemption and a bulk job raise, with signatures
// that verify; an enterprise subscription to a dead URL showing its failed attempts and
// turning `failing`; and a failed CSV row fixed in place and retried in the same job.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listen, type ListenedEvent } from '@hallmark/listen';
import { newId, randomBase62 } from '@hallmark/kit';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { csvForm, png, waitForJob, zipOf } from './bulk.js';
import type { TestStack } from './index.js';

let stack: TestStack;
let owner: string;
let key: string;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string>; body: string }[] = [];

// Independent verifiers, written from the guide (not from src/).
const safeEqual = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
function verifyService(header: string, body: string, secret: string): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && safeEqual(v ?? '', expected));
}
const verifyEnterprise = (header: string, body: string, secret: string) =>
  safeEqual(header, createHmac('sha256', secret).update(body).digest('hex'));

async function upload(form: FormData, auth: string) {
  const res = await fetch(`${stack.gatewayUrl}/api/bulk-mint`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const HEADER = 'name,description,category,recipientEmail';
const csvJob = (rows: string[]) =>
  zipOf(rows.map((_, i) => ({ name: `${i + 1}.png`, data: png(`row-${i + 1}-${randomBase62(4)}`) }))).then(
    (zip) => csvForm([HEADER, ...rows].join('\r\n'), zip),
  );

/**
 * The suites, on `getStack()` (read in beforeAll, once the host suite's stack is up).
 */
export function describeDeveloperExperience(getStack: () => TestStack): void {
  beforeAll(async () => {
    stack = getStack();
    owner = await stack.token({ ent: newId('enterprise'), role: 'owner' });
    const made = await stack.call('POST', '/api/v1/api-keys', {
      auth: owner,
      body: { name: 'laptop', type: 'test', permissions: ['admin.*'] },
    });
    expect(made.status).toBe(201);
    key = made.body.key;
    // The developer's local receiver: plain HTTP on localhost, answering 200 "ok".
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
  });

  describe('listen --forward-to a local plain-HTTP receiver', () => {
    it('forwards a voucher redemption and a bulk job with their real headers; both signatures verify', async () => {
      const answers: { event: ListenedEvent; status: number | null }[] = [];
      const l = listen({
        baseUrl: stack.gatewayUrl,
        credential: key,
        events: ['transaction.completed', 'bulk.job.completed'],
        forwardTo: receiverUrl,
        onEvent: (event, forwarded) => void answers.push({ event, status: forwarded?.status ?? null }),
      });
      const session = await l.session;
      expect(session).toMatchObject({ id: expect.stringMatching(/^lsn_/), livemode: false });

      const code = `DEV${randomBase62(8)}`;
      const v = await stack.call('POST', '/api/v1/vouchers', {
        auth: key,
        body: { code, type: 'percentage', value: 10 },
      });
      expect(v.status).toBe(201);
      const redeemed = await stack.call('POST', '/api/v1/vouchers/redeem', {
        auth: key,
        body: { code, amount: 1000, order_id: `order-${randomBase62(6)}` },
      });
      expect(redeemed.status).toBe(200);
      const job = await upload(await csvJob(['Bag,Leather bag,Bags,ada@example.com']), key);
      expect(job.status).toBe(202);
      expect(await waitForJob(stack, key, job.body.data.jobId)).toMatchObject({ status: 'completed' });

      const deadline = Date.now() + 30_000;
      while (answers.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      l.close();
      await l.done;

      expect(answers.map((a) => [a.event.type, a.status]).sort()).toEqual([
        ['bulk.job.completed', 200],
        ['transaction.completed', 200],
      ]);
      const txn = received.find((r) => r.headers['x-service-signature'])!;
      expect(JSON.parse(txn.body)).toMatchObject({
        type: 'transaction.completed',
        livemode: false,
        data: { object: { id: redeemed.body.transaction_id } },
      });
      expect(txn.headers['content-type']).toBe('application/json');
      expect(verifyService(txn.headers['x-service-signature']!, txn.body, session.secret)).toBe(true);
      expect(verifyService(txn.headers['x-service-signature']!, txn.body, 'whsec_wrong')).toBe(false);
      const bulk = received.find((r) => r.headers['x-webhook-signature'])!;
      expect(JSON.parse(bulk.body)).toMatchObject({
        event: 'bulk.job.completed',
        jobId: job.body.data.jobId,
      });
      expect(bulk.headers['x-webhook-event']).toBe('bulk.job.completed');
      expect(verifyEnterprise(bulk.headers['x-webhook-signature']!, bulk.body, session.secret)).toBe(true);
    }, 120_000);

    it('refuses a stream without a credential or with an unknown type, in the error envelope', async () => {
      const anon = await fetch(`${stack.gatewayUrl}/api/v1/listen`);
      expect(anon.status).toBe(401);
      const l = listen({ baseUrl: stack.gatewayUrl, credential: key, events: ['user.levitated'] });
      await expect(l.session).rejects.toMatchObject({ status: 400, code: 'parameter_invalid' });
    });
  });

  describe('enterprise subscription health', () => {
    it('a subscription to a dead URL shows its failed attempts and turns failing', async () => {
      const dead = createNetServer();
      await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
      const port = (dead.address() as AddressInfo).port;
      await new Promise((r) => dead.close(r));
      const made = await stack.call('POST', '/api/enterprise/webhooks', {
        auth: owner,
        body: { url: `https://127.0.0.1:${port}/hook`, events: ['bulk.job.completed'] },
      });
      expect(made.status).toBe(201);
      const id = made.body.webhook.id;
      // Three test sends: each delivery's first attempt is immediate, so three failed attempts
      // in a row (the default HALLMARK_WEBHOOK_FAILING_AFTER) without waiting for retries.
      for (let i = 0; i < 3; i++) {
        const sent = await stack.call('POST', `/api/enterprise/webhooks/${id}/test`, { auth: owner });
        expect(sent.status).toBe(202);
        await new Promise((r) => setTimeout(r, 300));
      }

      const deadline = Date.now() + 30_000;
      let sub: any;
      do {
        await new Promise((r) => setTimeout(r, 500));
        sub = (await stack.call('GET', `/api/enterprise/webhooks/${id}`, { auth: owner })).body.webhook;
      } while (sub.status !== 'failing' && Date.now() < deadline);
      expect(sub).toMatchObject({ status: 'failing', enabled: true });
      expect(sub.consecutiveFailures).toBeGreaterThanOrEqual(3);
      expect(sub.lastError).toMatch(/ECONNREFUSED/);

      const log = await stack.call('GET', `/api/enterprise/webhooks/${id}/deliveries`, { auth: owner });
      expect(log.status).toBe(200);
      expect(log.body.deliveries).toHaveLength(3);
      for (const d of log.body.deliveries) {
        expect(d).toMatchObject({ webhook_id: id, event_type: 'bulk.job.completed' });
        expect(d.attempt_log[0]).toMatchObject({
          attempt: 1,
          status_code: null,
          error: expect.stringMatching(/ECONNREFUSED/),
        });
      }
    }, 60_000);
  });

  describe('PATCH /api/bulk-mint/:jobId/items/:row', () => {
    it('fixes a failed row as validated at upload, and the retry mints it in the same job', async () => {
      const created = await upload(
        await csvJob(['Bag,Leather bag,Bags,ada@example.com', 'Belt,Leather belt,Belts,not-an-email']),
        key,
      );
      const jobId = created.body.data.jobId;
      expect(await waitForJob(stack, key, jobId)).toMatchObject({ status: 'completed', failedCount: 1 });

      const bad = await stack.call('PATCH', `/api/bulk-mint/${jobId}/items/2`, {
        auth: key,
        body: { recipientEmail: 'still not one' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ success: false, code: 'parameter_invalid', param: 'recipientEmail' });
      const unknown = await stack.call('PATCH', `/api/bulk-mint/${jobId}/items/2`, {
        auth: key,
        body: { colour: 'red' },
      });
      expect(unknown.body).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
      const minted = await stack.call('PATCH', `/api/bulk-mint/${jobId}/items/1`, {
        auth: key,
        body: { name: 'Other' },
      });
      expect(minted.status).toBe(400);

      const fixed = await stack.call('PATCH', `/api/bulk-mint/${jobId}/items/2`, {
        auth: key,
        body: { recipientEmail: 'grace@example.com', imageUrl: null },
      });
      expect(fixed.status).toBe(200);
      expect(fixed.body).toMatchObject({
        success: true,
        data: { jobId, row: 2, name: 'Belt', status: 'failed' },
      });

      const retry = await stack.call('POST', `/api/bulk-mint/${jobId}/retry`, { auth: key });
      expect(retry.body.data.retriedCount).toBe(1);
      const done = await waitForJob(stack, key, jobId);
      expect(done).toMatchObject({ status: 'completed', successCount: 2, failedCount: 0, totalCount: 2 });
    }, 120_000);
  });
}
