// WebhooksService handlers on the real PostgreSQL: every input rule, tenancy and test-mode
// scoping, status moves, secrets shown only on create and rotate, subscriptions; and the
// fan-out of a batch of events (the consumer hands over everything already received).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectBus,
  createLogger,
  newId,
  openDatabase,
  transaction,
  type Bus,
  type EventEnvelope,
  type Pool,
} from '@hallmark/kit';
import {
  closeTestDatabase,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  uniqueDatabaseName,
} from '@hallmark/kit/testing';
import path from 'node:path';
import { createWebhooks, type Webhooks } from '../src/webhooks/index.js';
import { principal, refusal, TEST_ENCRYPTION_KEY } from './webhooks-helpers.js';

const CALL = { requestId: 'req_test', deadlineMs: Infinity };
const database = uniqueDatabaseName('notify');
let pool: Pool;
let bus: Bus;
let webhooks: Webhooks;
let api: Webhooks['api'];

const URL_OK = 'https://93.184.216.34/hooks';

beforeAll(async () => {
  pool = await openDatabase({
    serverUrl: TEST_DATABASE_SERVER,
    database,
    migrationsDirs: [path.join(import.meta.dirname, '..', 'migrations')],
  });
  bus = await connectBus(TEST_NATS_URL, 'notify-api-test');
  webhooks = createWebhooks(
    { pool, bus, log: createLogger('t', 'silent') },
    {
      encryptionKeys: TEST_ENCRYPTION_KEY,
      outboundAllowHosts: '',
      retryScheduleS: [60, 300, 900, 3600, 21600],
    },
  );
  api = webhooks.api;
});

afterAll(async () => {
  await bus.close();
  await closeTestDatabase(pool, database);
});

describe('endpoints', () => {
  it('create returns {id webhook_, url, events, status active, secret whsec_, created_at}; the secret is stored encrypted', async () => {
    const p = principal();
    const e = await api.createEndpoint(
      { principal: p, url: URL_OK, events: ['user.created', 'transaction.completed'], description: 'main' },
      CALL,
    );
    expect(e).toMatchObject({
      id: expect.stringMatching(/^webhook_[0-9A-Za-z]{24}$/),
      url: URL_OK,
      events: ['user.created', 'transaction.completed'],
      status: 'active',
      description: 'main',
      secret: expect.stringMatching(/^whsec_/),
      livemode: true,
    });
    expect(Date.parse(e.created_at)).not.toBeNaN();
    const { rows } = await pool.query<{ secret_enc: string }>(
      'SELECT secret_enc FROM webhook_endpoints WHERE id = $1',
      [e.id],
    );
    expect(rows[0]!.secret_enc).toMatch(/^v1\./);
    expect(rows[0]!.secret_enc).not.toContain(e.secret!.slice(6));
    // Not shown again.
    expect((await api.getEndpoint({ principal: p, endpoint_id: e.id }, CALL)).secret).toBeUndefined();
    const list = await api.listEndpoints({ principal: p }, CALL);
    expect(list.endpoints.map((x) => [x.id, x.secret])).toEqual([[e.id, undefined]]);
    expect(list.pagination).toEqual({ page: 1, limit: 20, total: 1, total_pages: 1 });
    // The kit's page rule, as in every service: no OFFSET past a million pages, limit ≤ 100.
    for (const [page, param] of [
      [{ page: 1_000_001, limit: 20 }, 'page'],
      [{ page: 1, limit: 101 }, 'limit'],
    ] as const)
      expect(await refusal(api.listEndpoints({ principal: p, page }, CALL))).toMatchObject({
        code: 'parameter_invalid',
        param,
      });
  });

  it('a client secret is kept as given; a malformed one is refused', async () => {
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const e = await api.createEndpoint(
      { principal: principal(), url: URL_OK, events: ['user.created'], secret },
      CALL,
    );
    expect(e.secret).toBe(secret);
    expect(
      await refusal(
        api.createEndpoint(
          { principal: principal(), url: URL_OK, events: ['user.created'], secret: 'hunter2' },
          CALL,
        ),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'secret' });
  });

  it.each([
    ['http://93.184.216.34/x', 'HTTPS'],
    ['not a url', 'not a URL'],
    ['https://127.0.0.1/x', 'non-public'],
    ['https://10.0.0.1/x', 'non-public'],
    ['https://169.254.169.254/latest/meta-data', 'non-public'],
    ['https://[::1]/x', 'non-public'],
    ['https://[::ffff:127.0.0.1]/x', 'non-public'],
    ['https://[fd00::1]/x', 'non-public'],
    ['https://localhost/x', 'non-public'],
  ])('url %s is refused (400 parameter_invalid, param url)', async (url, why) => {
    expect(
      await refusal(api.createEndpoint({ principal: principal(), url, events: ['user.created'] }, CALL)),
    ).toEqual({
      code: 'parameter_invalid',
      param: 'url',
      message: expect.stringContaining(why),
      http: 400,
    });
  });

  it('events: required, each a versioned type (an unknown one is named), internal types refused', async () => {
    const create = (events: string[]) =>
      refusal(api.createEndpoint({ principal: principal(), url: URL_OK, events }, CALL));
    expect(await create([])).toMatchObject({ code: 'parameter_missing', param: 'events' });
    expect(await create(['user.created', 'user.teleported'])).toMatchObject({
      code: 'parameter_invalid',
      param: 'events[1]',
      message: expect.stringContaining("'user.teleported'"),
    });
    expect(await create(['voucher.redeemed'])).toMatchObject({ param: 'events[0]' });
    expect(await create(['bulk.job.completed'])).toMatchObject({ param: 'events[0]' });
  });

  it('other enterprises and the other mode see nothing (404), malformed ids are 404', async () => {
    const p = principal();
    const e = await api.createEndpoint({ principal: p, url: URL_OK, events: ['user.created'] }, CALL);
    for (const other of [principal(), principal(p.enterprise_id, false)]) {
      expect(await refusal(api.getEndpoint({ principal: other, endpoint_id: e.id }, CALL))).toMatchObject({
        code: 'resource_not_found',
        http: 404,
      });
      expect(await refusal(api.deleteEndpoint({ principal: other, endpoint_id: e.id }, CALL))).toMatchObject({
        http: 404,
      });
      expect(
        await refusal(api.listDeliveries({ principal: other, endpoint_id: e.id, status: '' }, CALL)),
      ).toMatchObject({ http: 404 });
      expect((await api.listEndpoints({ principal: other }, CALL)).endpoints).toEqual([]);
    }
    expect(await refusal(api.getEndpoint({ principal: p, endpoint_id: 'webhook_nope' }, CALL))).toMatchObject(
      { http: 404 },
    );
  });

  it('PATCH changes events, url, description and status; failed is reached, not set, and active clears it', async () => {
    const p = principal();
    const e = await api.createEndpoint({ principal: p, url: URL_OK, events: ['user.created'] }, CALL);
    const upd = (patch: Record<string, unknown>) =>
      api.updateEndpoint({ principal: p, endpoint_id: e.id, events: [], set_events: false, ...patch }, CALL);
    expect(await upd({ events: ['payment.failed'], set_events: true, description: 'd' })).toMatchObject({
      events: ['payment.failed'],
      description: 'd',
      url: URL_OK,
    });
    expect(await upd({ status: 'disabled' })).toMatchObject({ status: 'disabled' });
    expect(await refusal(upd({ status: 'failed' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'status',
    });
    expect(await refusal(upd({ url: 'https://192.168.0.10/x' }))).toMatchObject({ param: 'url' });
    expect(await refusal(upd({ events: ['nope'], set_events: true }))).toMatchObject({ param: 'events[0]' });
    await pool.query(`UPDATE webhook_endpoints SET status = 'failed' WHERE id = $1`, [e.id]);
    expect(await upd({ status: 'active' })).toMatchObject({ status: 'active' });
    expect(await upd({ url: 'https://93.184.216.35/new' })).toMatchObject({
      url: 'https://93.184.216.35/new',
    });
  });

  it('DELETE removes the endpoint; a second DELETE is 404', async () => {
    const p = principal();
    const e = await api.createEndpoint({ principal: p, url: URL_OK, events: ['user.created'] }, CALL);
    expect(await api.deleteEndpoint({ principal: p, endpoint_id: e.id }, CALL)).toEqual({
      id: e.id,
      deleted: true,
    });
    expect(await refusal(api.getEndpoint({ principal: p, endpoint_id: e.id }, CALL))).toMatchObject({
      http: 404,
    });
    expect(await refusal(api.deleteEndpoint({ principal: p, endpoint_id: e.id }, CALL))).toMatchObject({
      http: 404,
    });
  });

  it('rotate-secret returns the new secret and the overlap end; bad overlaps are refused', async () => {
    const p = principal();
    const e = await api.createEndpoint({ principal: p, url: URL_OK, events: ['user.created'] }, CALL);
    const r = await api.rotateSecret({ principal: p, endpoint_id: e.id, overlap_seconds: 3600 }, CALL);
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(e.secret);
    expect(Math.abs(Date.parse(r.previous_secret_expires_at!) - Date.now() - 3600_000)).toBeLessThan(10_000);
    expect(
      await refusal(api.rotateSecret({ principal: p, endpoint_id: e.id, overlap_seconds: 9_999_999 }, CALL)),
    ).toMatchObject({ param: 'overlap_seconds' });
  });

  it('deliveries: test event queued for this endpoint only; unknown deliveries are 404; list filters by status', async () => {
    const p = principal();
    const e = await api.createEndpoint({ principal: p, url: URL_OK, events: ['user.created'] }, CALL);
    const d = await api.sendTestEvent({ principal: p, endpoint_id: e.id }, CALL);
    expect(d).toMatchObject({
      id: expect.stringMatching(/^dlv_/),
      event_type: 'user.created',
      status: 'pending',
      attempts: 0,
      max_attempts: 6,
    });
    expect(
      await refusal(api.sendTestEvent({ principal: p, endpoint_id: e.id, event_type: 'key.revoked' }, CALL)),
    ).toMatchObject({ param: 'event_type' });
    expect(
      (await api.listDeliveries({ principal: p, endpoint_id: e.id, status: 'pending' }, CALL)).deliveries,
    ).toHaveLength(1);
    expect(
      (await api.listDeliveries({ principal: p, endpoint_id: e.id, status: 'failed' }, CALL)).deliveries,
    ).toHaveLength(0);
    expect(
      await refusal(api.listDeliveries({ principal: p, endpoint_id: e.id, status: 'lost' }, CALL)),
    ).toMatchObject({ param: 'status' });
    expect(
      await refusal(
        api.retryDelivery({ principal: p, endpoint_id: e.id, delivery_id: newId('delivery') }, CALL),
      ),
    ).toMatchObject({ http: 404 });
    expect(
      await refusal(
        api.retryDelivery({ principal: principal(), endpoint_id: e.id, delivery_id: d.id }, CALL),
      ),
    ).toMatchObject({ http: 404 });
  });
});

describe('enterprise subscriptions', () => {
  it('create → {id wh_, url, events, enabled, secret}; a 64-hex secret is kept; list, get, delete', async () => {
    const p = principal();
    const secret = 'a1'.repeat(32);
    const s = await api.createSubscription(
      { principal: p, url: URL_OK, events: ['bulk.job.completed', 'voucher.minted'], secret, enabled: false },
      CALL,
    );
    expect(s).toMatchObject({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{24}$/),
      url: URL_OK,
      events: ['bulk.job.completed', 'voucher.minted'],
      enabled: false,
      secret,
    });
    const generated = await api.createSubscription(
      { principal: p, url: URL_OK, events: ['bulk.job.failed'] },
      CALL,
    );
    expect(generated).toMatchObject({ enabled: true, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(
      (await api.listSubscriptions({ principal: p }, CALL)).subscriptions.map((x) => [x.id, x.secret]),
    ).toEqual([
      [generated.id, undefined],
      [s.id, undefined],
    ]);
    expect(await api.getSubscription({ principal: p, subscription_id: s.id }, CALL)).toMatchObject({
      id: s.id,
      enabled: false,
    });
    expect(
      await refusal(api.getSubscription({ principal: principal(), subscription_id: s.id }, CALL)),
    ).toMatchObject({ http: 404 });
    expect(await api.deleteSubscription({ principal: p, subscription_id: s.id }, CALL)).toEqual({
      id: s.id,
      deleted: true,
    });
    expect(
      await refusal(api.deleteSubscription({ principal: p, subscription_id: s.id }, CALL)),
    ).toMatchObject({ http: 404 });
  });

  it('refuses http, private addresses, unknown events and malformed secrets', async () => {
    const create = (over: Record<string, unknown>) =>
      refusal(
        api.createSubscription(
          { principal: principal(), url: URL_OK, events: ['voucher.created'], ...over },
          CALL,
        ),
      );
    expect(await create({ url: 'http://93.184.216.34/x' })).toMatchObject({ param: 'url' });
    expect(await create({ url: 'https://10.1.2.3/x' })).toMatchObject({ param: 'url' });
    expect(await create({ events: ['transaction.completed'] })).toMatchObject({ param: 'events[0]' });
    expect(await create({ secret: 'xyz' })).toMatchObject({ param: 'secret' });
  });
});

const event = (type: string, source: string, enterprise_id: string, livemode: boolean, data: unknown) =>
  ({
    id: newId('event'),
    type,
    source,
    occurred_at: '',
    enterprise_id,
    livemode,
    request_id: null,
    data,
  }) as EventEnvelope;

describe('fan-out', () => {
  it('a batch of events of two enterprises and both modes: each reaches only its own enterprise and mode, by type, once', async () => {
    const [a, b] = [newId('enterprise'), newId('enterprise')];
    const receivers: Record<string, string> = {};
    // Each (enterprise, mode) gets an endpoint for transaction.completed, a subscription to
    // bulk.job.completed and a listen session for every type.
    for (const ent of [a, b])
      for (const livemode of [true, false]) {
        const name = `${ent === a ? 'a' : 'b'}-${livemode ? 'live' : 'test'}`;
        const p = principal(ent, livemode);
        const ep = await api.createEndpoint(
          { principal: p, url: `${URL_OK}/${name}`, events: ['transaction.completed'] },
          CALL,
        );
        const sub = await api.createSubscription(
          { principal: p, url: `${URL_OK}/${name}/sub`, events: ['bulk.job.completed'] },
          CALL,
        );
        const session = await webhooks.sessions.open(
          { enterpriseId: ent, livemode },
          { events: [], secret: 'whsec_test', actorId: null },
        );
        receivers[ep.id] = `${name} endpoint`;
        receivers[sub.id] = `${name} subscription`;
        receivers[session.id] = `${name} session`;
      }
    // A disabled endpoint of a takes nothing.
    const off = await api.createEndpoint(
      { principal: principal(a, true), url: `${URL_OK}/off`, events: ['transaction.completed'] },
      CALL,
    );
    const disable = { endpoint_id: off.id, status: 'disabled', events: [], set_events: false };
    await api.updateEndpoint({ principal: principal(a, true), ...disable }, CALL);

    const txn = { object: { id: newId('transaction'), type: 'voucher_redemption', amount: 1 } };
    const job = { jobId: 'job_1', status: 'completed' };
    const events = [
      event('transaction.completed', 'vouchers', a, true, txn),
      event('transaction.completed', 'vouchers', b, false, txn),
      event('bulk.job.completed', 'bulk', b, true, job),
      event('transaction.completed', 'vouchers', a, false, txn),
      event('voucher.created', 'vouchers', a, true, { object: { id: 'v_internal' } }), // internal: no webhook
    ];
    const created = await transaction(pool, (tx) => webhooks.service.fanOut(tx, events));

    const { rows } = await pool.query<{ event_id: string; receiver: string; event_type: string }>(
      `SELECT event_id, coalesce(endpoint_id, subscription_id, session_id) AS receiver, event_type
         FROM webhook_deliveries WHERE event_id = ANY($1)`,
      [events.map((e) => e.id)],
    );
    const got = rows
      .map(
        (r) => `${events.findIndex((e) => e.id === r.event_id)} ${r.event_type} → ${receivers[r.receiver]}`,
      )
      .sort();
    expect(got).toEqual(
      [
        '0 transaction.completed → a-live endpoint',
        '0 transaction.completed → a-live session',
        '1 transaction.completed → b-test endpoint',
        '1 transaction.completed → b-test session',
        '2 bulk.job.completed → b-live subscription',
        '2 bulk.job.completed → b-live session',
        '3 transaction.completed → a-test endpoint',
        '3 transaction.completed → a-test session',
      ].sort(),
    );
    expect(created).toBe(8);
    // The same batch again (a redelivery the consumer's dedupe missed) creates nothing.
    expect(await transaction(pool, (tx) => webhooks.service.fanOut(tx, events))).toBe(0);
  });
});
