// Delivery end to end on the real PostgreSQL and NATS: events published on JetStream, the
// fan-out consumer and the delivery worker in-process (an injected guarded agent that
// trusts the test CA), a local HTTPS receiver. Schedule shortened to 1 s.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createGuardedAgent,
  createLogger,
  newId,
  openDatabase,
  OutboundGuard,
  randomBase62,
  registry,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  eventually,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import type { Principal } from '@hallmark/proto/common/v1/common';
import type { Delivery } from '@hallmark/proto/notify/v1/webhooks';
import { createServer } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { createWebhooks, type Webhooks } from '../src/webhooks/index.js';
import { WebhookSender } from '../src/webhooks/sender.js';
import { DeliveryWorker } from '../src/webhooks/workers/delivery-worker.js';
import {
  makeCertificate,
  startReceiver,
  TEST_ENCRYPTION_KEY,
  verifyEnterpriseSignature,
  verifyServiceSignature,
  verifyStandardWebhook,
  type Receiver,
} from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const log = createLogger('notify-test', 'silent');
const database = uniqueDatabaseName('notify');
const source = `wht${randomBase62(8).toLowerCase()}`;
let pool: Pool;
let bus: Bus;
let receiver: Receiver;
let webhooks: Webhooks;
let tls: { key: string; cert: string };

const principal = (enterpriseId: string, livemode = true): Principal => ({
  enterprise_id: enterpriseId,
  livemode,
  actor_id: 'user_test',
  actor_type: 'user',
  scopes: ['admin.*'],
});

async function publish(
  type: string,
  enterpriseId: string,
  data: unknown,
  opts: { livemode?: boolean; source?: string } = {},
): Promise<EventEnvelope> {
  const event = {
    id: newId('event'),
    type,
    source: opts.source ?? 'vouchers',
    occurred_at: new Date().toISOString(),
    enterprise_id: enterpriseId,
    livemode: opts.livemode ?? true,
    request_id: null,
    data,
  } as EventEnvelope;
  // The subject prefix is this file's own, so its consumer sees only its events.
  await bus.js.publish(`hallmark.${source}.${type}`, JSON.stringify(event), { msgID: event.id });
  return event;
}

const txn = (id = newId('transaction')) => ({
  object: { id, type: 'voucher_redemption', amount: 150, currency: 'USD' },
});
const at = (p: string) => receiver.received.filter((r) => r.path === p);

/** Observations of the webhook-latency objective's histogram so far. */
async function firstAttempts(): Promise<number> {
  const text = await registry.getSingleMetricAsString('hallmark_webhook_first_attempt_delay_seconds');
  return Number(/_count(?:\{[^}]*\})? (\d+)/.exec(text)?.[1] ?? 0);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function deliveriesOf(p: Principal, endpointId: string): Promise<Delivery[]> {
  const res = await webhooks.api.listDeliveries({ principal: p, endpoint_id: endpointId, status: '' }, CALL);
  return res.deliveries;
}

beforeAll(async () => {
  tls = await makeCertificate();
  receiver = await startReceiver(tls);
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(TEST_NATS_URL, 'notify-webhooks-test');
  webhooks = createWebhooks(
    { pool, bus, log },
    {
      encryptionKeys: TEST_ENCRYPTION_KEY,
      outboundAllowHosts: '127.0.0.1',
      retryScheduleS: [1, 1, 1, 1, 1],
      agent: (guard) => createGuardedAgent(guard, { tls: { ca: tls.cert } }),
      timeoutMs: 2000,
      pollIntervalMs: 100,
      durable: `notify-webhooks-${source}`,
      filter: `hallmark.${source}.>`,
    },
  );
  for (const w of webhooks.workers) await w.start();
}, 30_000);

afterAll(async () => {
  for (const w of webhooks.workers) await w.stop();
  const jsm = await (await import('@nats-io/jetstream')).jetstreamManager(bus.nc);
  await jsm.consumers.delete('HALLMARK', `notify-webhooks-${source}`).catch(() => undefined);
  await bus.close();
  await receiver.close();
  await closeTestDatabase(pool, database);
});

beforeEach(() => {
  receiver.respond = () => 200;
});

describe('signed delivery with retries', () => {
  it('a receiver answering 500 twice is retried on the schedule with the same event id and body, then delivered', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    let calls = 0;
    receiver.respond = (r) => (r.path === '/retry' && ++calls <= 2 ? 500 : 200);
    const ep = await webhooks.api.createEndpoint(
      { principal: p, url: `${receiver.url}/retry`, events: ['transaction.completed'] },
      CALL,
    );
    const firstBefore = await firstAttempts();
    const event = await publish('transaction.completed', ent, txn());

    const [d] = await eventually(
      async () => {
        const list = await deliveriesOf(p, ep.id);
        expect(list[0]?.status).toBe('succeeded');
        return list;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const got = at('/retry');
    expect(got).toHaveLength(3);
    expect(got.map((r) => r.headers['x-hallmark-attempt'])).toEqual(['1', '2', '3']);
    for (const r of got) {
      expect(r.headers['webhook-id']).toBe(event.id);
      expect(r.body).toBe(got[0]!.body);
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifyServiceSignature(r.headers['x-service-signature']!, r.body, ep.secret!)).toBe(true);
      expect(verifyStandardWebhook(r.headers, r.body, ep.secret!)).toBe(true);
    }
    // Waits follow the 1 s schedule (the poll adds at most ~100 ms).
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(900);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(900);
    expect(JSON.parse(got[0]!.body)).toEqual({
      id: event.id,
      type: 'transaction.completed',
      created_at: event.occurred_at,
      data: { object: (event.data as { object: unknown }).object },
      api_version: '2025-09',
      livemode: true,
    });
    expect(d!.attempt_log.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(d!.attempt_log.every((a) => a.latency_ms >= 0 && a.attempted_at)).toBe(true);
    expect(d).toMatchObject({ event_id: event.id, attempts: 3, max_attempts: 6 });
    // The latency objective measures the wait for the first attempt only: one observation.
    expect((await firstAttempts()) - firstBefore).toBe(1);
    expect((await webhooks.api.getEndpoint({ principal: p, endpoint_id: ep.id }, CALL)).status).toBe(
      'active',
    );
  }, 20_000);

  it('a receiver down for every attempt: delivery failed after 6, endpoint failed; a replay delivers and restores active', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const ep = await webhooks.api.createEndpoint(
      { principal: p, url: `https://127.0.0.1:${await freePort()}/down`, events: ['payment.succeeded'] },
      CALL,
    );
    const event = await publish(
      'payment.succeeded',
      ent,
      { object: { id: 'pay_1', amount: 500 } },
      { source: 'platform' },
    );
    const [d] = await eventually(
      async () => {
        const list = await deliveriesOf(p, ep.id);
        expect(list[0]?.status).toBe('failed');
        return list;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(d!.attempts).toBe(6);
    expect(d!.next_attempt_at).toBeUndefined();
    expect(d!.attempt_log).toHaveLength(6);
    expect(
      d!.attempt_log.every((a) => a.status_code === undefined && /ECONNREFUSED/.test(a.error ?? '')),
    ).toBe(true);
    expect((await webhooks.api.getEndpoint({ principal: p, endpoint_id: ep.id }, CALL)).status).toBe(
      'failed',
    );

    // The receiver comes back (at a new address); a manual retry replays the same event.
    await webhooks.api.updateEndpoint(
      { principal: p, endpoint_id: ep.id, url: `${receiver.url}/replayed`, events: [], set_events: false },
      CALL,
    );
    const queued = await webhooks.api.retryDelivery(
      { principal: p, endpoint_id: ep.id, delivery_id: d!.id },
      CALL,
    );
    expect(queued).toMatchObject({ status: 'pending', max_attempts: 7 });
    await eventually(async () => expect((await deliveriesOf(p, ep.id))[0]?.status).toBe('succeeded'), {
      timeoutMs: 5000,
    });
    const [r] = at('/replayed');
    expect(r!.headers['webhook-id']).toBe(event.id);
    expect(r!.headers['x-hallmark-attempt']).toBe('7');
    expect(verifyServiceSignature(r!.headers['x-service-signature']!, r!.body, ep.secret!)).toBe(true);
    expect((await webhooks.api.getEndpoint({ principal: p, endpoint_id: ep.id }, CALL)).status).toBe(
      'active',
    );
  }, 30_000);
  it('a hung receiver times out and a 3xx is a failure (redirects are not followed)', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    let calls = 0;
    receiver.respond = async (r) => {
      if (r.path !== '/slow') return 200;
      calls += 1;
      if (calls === 1) await new Promise((res) => setTimeout(res, 2500)); // past the 2 s budget
      return calls === 2 ? 302 : 200;
    };
    const ep = await webhooks.api.createEndpoint(
      { principal: p, url: `${receiver.url}/slow`, events: ['subscription.renewed'] },
      CALL,
    );
    await publish('subscription.renewed', ent, { object: { id: 'sub_1' } }, { source: 'platform' });
    const [d] = await eventually(
      async () => {
        const list = await deliveriesOf(p, ep.id);
        expect(list[0]?.status).toBe('succeeded');
        return list;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(d!.attempt_log.map((a) => [a.status_code ?? null, a.error ?? null])).toEqual([
      [null, 'timed out after 2000 ms'],
      [302, 'HTTP 302: redirects are not followed'],
      [200, null],
    ]);
    expect(d!.attempt_log[0]!.latency_ms).toBeGreaterThanOrEqual(1900);
  }, 20_000);
});

describe('who receives what', () => {
  it('only endpoints of the same enterprise and mode, subscribed to the type and not disabled', async () => {
    const ent = newId('enterprise');
    const mk = (p: Principal, name: string, events = ['transaction.created']) =>
      webhooks.api.createEndpoint({ principal: p, url: `${receiver.url}/${name}`, events }, CALL);
    const testEp = await mk(principal(ent, false), 'who-test');
    await mk(principal(ent, true), 'who-live');
    await mk(principal(newId('enterprise'), false), 'who-other');
    await mk(principal(ent, false), 'who-users', ['user.created']);
    const disabled = await mk(principal(ent, false), 'who-disabled');
    await webhooks.api.updateEndpoint(
      {
        principal: principal(ent, false),
        endpoint_id: disabled.id,
        status: 'disabled',
        events: [],
        set_events: false,
      },
      CALL,
    );
    const testEvent = await publish('transaction.created', ent, txn(), { livemode: false });
    await publish('voucher.redeemed', ent, txn(), { livemode: false }); // internal: never delivered

    await eventually(() => expect(at('/who-test')).toHaveLength(1), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 500));
    expect(at('/who-test')[0]!.headers['webhook-id']).toBe(testEvent.id);
    expect(JSON.parse(at('/who-test')[0]!.body).livemode).toBe(false);
    for (const p of ['/who-live', '/who-other', '/who-users', '/who-disabled']) expect(at(p)).toHaveLength(0);
    expect(await deliveriesOf(principal(ent, false), testEp.id)).toHaveLength(1);
  });

  it('enterprise subscriptions get the spec body and headers; voucher.created only from certificates', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const sub = await webhooks.api.createSubscription(
      {
        principal: p,
        url: `${receiver.url}/enterprise`,
        events: ['bulk.job.completed', 'voucher.created'],
      },
      CALL,
    );
    expect(sub.secret).toMatch(/^[0-9a-f]{64}$/);
    const job = {
      jobId: 'job_1',
      status: 'completed',
      summary: { totalItems: 2, successCount: 2, failureCount: 0, processingTime: 1234 },
      results: {
        vouchers: [{ id: 'v_1', url: 'https://x/v_1', referenceNumber: 'R1', metadata: {} }],
        transactionHash: '0xab',
        blockNumber: 7,
      },
      shop: 'shop.example',
      orderId: 'gid://order/1',
      orderNumber: '#1001',
      voucher_map: {
        'gid://li/1': { voucherIds: ['v_1'], urls: ['https://x/v_1'], referenceNumbers: ['R1'] },
      },
      voucher_all: [
        { lineItemGid: 'gid://li/1', voucherId: 'v_1', url: 'https://x/v_1', referenceNumber: 'R1' },
      ],
    };
    const done = await publish('bulk.job.completed', ent, job, { source: 'bulk' });
    await publish('voucher.created', ent, { object: { id: 'vouch_discount' } }, { source: 'vouchers' });
    await publish(
      'certificate_voucher.created',
      ent,
      { object: { id: 'v_cert' } },
      { source: 'certificates' },
    );
    await publish('bulk.job.failed', ent, { ...job, status: 'failed' }, { source: 'bulk' }); // not subscribed

    await eventually(() => expect(at('/enterprise')).toHaveLength(2), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(at('/enterprise')).toHaveLength(2);
    const bulk = at('/enterprise').find((r) => r.headers['x-webhook-event'] === 'bulk.job.completed')!;
    expect(verifyEnterpriseSignature(bulk.headers['x-webhook-signature']!, bulk.body, sub.secret!)).toBe(
      true,
    );
    expect(bulk.headers['content-type']).toBe('application/json');
    expect(new Date(bulk.headers['x-webhook-timestamp']!).toISOString()).toBe(
      bulk.headers['x-webhook-timestamp'],
    );
    expect(JSON.parse(bulk.body)).toEqual({
      event: 'bulk.job.completed',
      timestamp: done.occurred_at,
      ...job,
    });
    const voucher = at('/enterprise').find((r) => r.headers['x-webhook-event'] === 'voucher.created')!;
    expect(JSON.parse(voucher.body)).toMatchObject({ event: 'voucher.created', voucher: { id: 'v_cert' } });
  });

  it('a certificate_voucher.batch reaches voucher.created / voucher.minted subscribers as one delivery per voucher, once', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const sub = await webhooks.api.createSubscription(
      { principal: p, url: `${receiver.url}/batched`, events: ['voucher.minted'] },
      CALL,
    );
    const vouchers = ['v_b1', 'v_b2', 'v_b3'].map((id) => ({ id, url: `https://x/${id}` }));
    const batch = await publish(
      'certificate_voucher.batch',
      ent,
      { created: vouchers, minted: vouchers.slice(0, 2) },
      { source: 'certificates' },
    );
    // The same batch again (a redelivery): nothing is delivered twice.
    await bus.js.publish(`hallmark.${source}.certificate_voucher.batch`, JSON.stringify(batch), {
      msgID: `${batch.id}-again`,
    });
    await eventually(() => expect(at('/batched')).toHaveLength(2), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(at('/batched')).toHaveLength(2);
    const bodies = at('/batched').map((r) => {
      expect(r.headers['x-webhook-event']).toBe('voucher.minted');
      expect(verifyEnterpriseSignature(r.headers['x-webhook-signature']!, r.body, sub.secret!)).toBe(true);
      return JSON.parse(r.body) as { event: string; voucher: { id: string } };
    });
    expect(bodies.map((b) => b.voucher.id).sort()).toEqual(['v_b1', 'v_b2']);
    const { rows } = await pool.query<{ event_id: string }>(
      'SELECT event_id FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_id',
      [sub.id],
    );
    expect(rows.map((r) => r.event_id)).toEqual([`${batch.id}.m.v_b1`, `${batch.id}.m.v_b2`]);
  });
});

describe('secrets, test events, replicas and the delivery-time guard', () => {
  it('after rotation both the old and the new secret verify during the overlap; a test event is signed', async () => {
    const p = principal(newId('enterprise'));
    const ep = await webhooks.api.createEndpoint(
      { principal: p, url: `${receiver.url}/rotate`, events: ['user.verified', 'document.verified'] },
      CALL,
    );
    const rotated = await webhooks.api.rotateSecret({ principal: p, endpoint_id: ep.id }, CALL);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(86_000_000);
    const queued = await webhooks.api.sendTestEvent(
      { principal: p, endpoint_id: ep.id, event_type: 'document.verified' },
      CALL,
    );
    expect(queued).toMatchObject({ status: 'pending', event_type: 'document.verified' });
    await eventually(() => expect(at('/rotate')).toHaveLength(1), { timeoutMs: 5000 });
    const [r] = at('/rotate');
    expect(r!.headers['x-service-signature']!.match(/v1=/g)).toHaveLength(2);
    for (const s of [ep.secret!, rotated.secret!]) {
      expect(verifyServiceSignature(r!.headers['x-service-signature']!, r!.body, s)).toBe(true);
      expect(verifyStandardWebhook(r!.headers, r!.body, s)).toBe(true);
    }
    expect(JSON.parse(r!.body)).toMatchObject({
      type: 'document.verified',
      data: { object: { test: true } },
    });

    // overlap 0 ends the old secret at once.
    const again = await webhooks.api.rotateSecret(
      { principal: p, endpoint_id: ep.id, overlap_seconds: 0 },
      CALL,
    );
    await webhooks.api.sendTestEvent({ principal: p, endpoint_id: ep.id }, CALL);
    await eventually(() => expect(at('/rotate')).toHaveLength(2), { timeoutMs: 5000 });
    const second = at('/rotate')[1]!;
    expect(verifyServiceSignature(second.headers['x-service-signature']!, second.body, again.secret!)).toBe(
      true,
    );
    expect(verifyServiceSignature(second.headers['x-service-signature']!, second.body, rotated.secret!)).toBe(
      false,
    );
  });

  it('two workers on one database deliver every (event, endpoint) once per attempt', async () => {
    const ent = newId('enterprise');
    const p = principal(ent);
    const second = new DeliveryWorker(
      pool,
      webhooks.deliveries,
      new WebhookSender(createGuardedAgent(new OutboundGuard('127.0.0.1'), { tls: { ca: tls.cert } }), 2000),
      log,
      { schedule: [1], pollIntervalMs: 20, concurrency: 8 },
    );
    await second.start();
    try {
      receiver.respond = async () => {
        await new Promise((r) => setTimeout(r, 5));
        return 200;
      };
      for (const name of ['rep-a', 'rep-b'])
        await webhooks.api.createEndpoint(
          { principal: p, url: `${receiver.url}/${name}`, events: ['transaction.updated'] },
          CALL,
        );
      const ids = new Set<string>();
      for (let i = 0; i < 100; i++) ids.add((await publish('transaction.updated', ent, txn())).id);
      await eventually(() => expect(at('/rep-a').length + at('/rep-b').length).toBe(200), {
        timeoutMs: 15_000,
      });
      await new Promise((r) => setTimeout(r, 300));
      for (const name of ['/rep-a', '/rep-b']) {
        const keys = at(name).map((r) => `${r.headers['webhook-id']}#${r.headers['x-hallmark-attempt']}`);
        expect(new Set(keys).size).toBe(100);
        expect(keys).toHaveLength(100);
        expect(new Set(at(name).map((r) => r.headers['webhook-id']))).toEqual(ids);
      }
    } finally {
      await second.stop();
    }
  }, 30_000);

  it('the guard is applied again at delivery time: an endpoint whose address is now loopback is refused', async () => {
    const p = principal(newId('enterprise'));
    // Stored directly, as if its host had been public at creation (DNS rebinding).
    const ep = await webhooks.store.createEndpoint(
      { enterpriseId: p.enterprise_id, livemode: true },
      {
        url: 'https://[::1]:9/rebind',
        events: ['user.deleted'],
        secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64'),
      },
    );
    await webhooks.api.sendTestEvent({ principal: p, endpoint_id: ep.id }, CALL);
    const [d] = await eventually(
      async () => {
        const list = await deliveriesOf(p, ep.id);
        // Wait for the recorded outcome, not the in-flight placeholder of the attempt.
        expect(list[0]?.attempt_log[0]?.error).toContain('outbound guard');
        expect(list[0]?.attempt_log[0]?.latency_ms).toBeGreaterThanOrEqual(0);
        return list;
      },
      { timeoutMs: 5000 },
    );
    expect(d!.attempt_log[0]!.error).toContain('refused by the outbound guard: ::1 is a loopback address');
  });

  it('the guarded agent connects only to checked addresses: host names and IP literals alike', async () => {
    const port = new URL(receiver.url).port;
    const post = (guard: OutboundGuard, url: string) =>
      request(url, {
        method: 'POST',
        body: '{}',
        dispatcher: createGuardedAgent(guard, { tls: { ca: tls.cert } }),
      }).then(
        (r) => r.statusCode,
        (e: Error) => e.name,
      );
    expect(await post(new OutboundGuard(''), `https://localhost:${port}/g`)).toBe('OutboundRefusedError');
    expect(await post(new OutboundGuard(''), `https://127.0.0.1:${port}/g`)).toBe('OutboundRefusedError');
    expect(await post(new OutboundGuard('localhost'), `https://localhost:${port}/g`)).toBe(200);
    expect(await post(new OutboundGuard('127.0.0.0/8'), `https://127.0.0.1:${port}/g`)).toBe(200);
    // TLS stays verified: without the test CA the self-signed receiver is refused.
    const noCa = await request(`https://127.0.0.1:${port}/g`, {
      method: 'POST',
      dispatcher: createGuardedAgent(new OutboundGuard('127.0.0.1')),
    }).then(
      (r) => r.statusCode,
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect(noCa).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
  });
});
