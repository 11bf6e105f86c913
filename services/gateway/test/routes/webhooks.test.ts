// routes/webhooks/: the versioned endpoints (`/api/v1/webhooks`, admin.*) and the enterprise
// dashboard's subscriptions (a user session).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { delivery, pageInfo, subscription as sub, webhookEndpoint } from './fixtures.js';
import { ENT, expectMapped, expectSessionOnly, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

/** A session route's guarantees: a user session only, and the service's `error` in the api envelope. */
function sessionGuarantees(
  req: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object },
  call: string,
  error = new HallmarkError('resource_not_found'),
  what = "another enterprise's subscription (404)",
) {
  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });
  it(`maps ${what} to the api envelope`, async () => {
    await expectMapped(h, ['webhooks', call], error, { ...req, headers: h.session });
  });
}

describe('POST /api/enterprise/webhooks', () => {
  const payload = { url: 'https://shop.example/hook', events: ['voucher.created'] };
  const req = { method: 'POST' as const, url: '/api/enterprise/webhooks', payload };

  it('subscribes and shows the secret once (201)', async () => {
    h.answer('webhooks', 'createSubscription', async () => sub({ secret: 'ab'.repeat(32) }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      webhook: {
        ...payload,
        id: 'whs_1',
        enabled: true,
        secret: 'ab'.repeat(32),
        createdAt: '2025-01-01T00:00:00.000Z',
        status: 'active',
        consecutiveFailures: 0,
        lastFailureAt: null,
        lastError: null,
      },
    });
    expect(h.callsTo('webhooks', 'createSubscription')[0]).toMatchObject(payload);
  });

  it('refuses an empty event list with 400 naming events, before any call', async () => {
    const res = await h.app.inject({ ...req, payload: { ...payload, events: [] }, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'events' });
    expect(h.calls).toEqual([]);
  });

  sessionGuarantees(
    req,
    'createSubscription',
    new HallmarkError('parameter_invalid', { param: 'url' }),
    "the service's parameter_invalid (a non-https url)",
  );
});

describe('GET /api/enterprise/webhooks', () => {
  const req = { method: 'GET' as const, url: '/api/enterprise/webhooks' };

  it('lists the subscriptions without their secrets', async () => {
    h.answer('webhooks', 'listSubscriptions', async () => ({ subscriptions: [sub()] }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json().webhooks).toEqual([expect.objectContaining({ id: 'whs_1' })]);
    expect(res.json().webhooks[0]).not.toHaveProperty('secret');
  });

  sessionGuarantees(
    req,
    'listSubscriptions',
    new HallmarkError('service_unavailable'),
    "the service's errors",
  );
});

describe('GET /api/enterprise/webhooks/:webhook_id', () => {
  const req = { method: 'GET' as const, url: '/api/enterprise/webhooks/whs_1' };

  it('answers one subscription', async () => {
    h.answer('webhooks', 'getSubscription', async () => sub());
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, webhook: { id: 'whs_1' } });
    expect(h.callsTo('webhooks', 'getSubscription')[0]).toMatchObject({ subscription_id: 'whs_1' });
  });

  sessionGuarantees(req, 'getSubscription');
});

describe('DELETE /api/enterprise/webhooks/:webhook_id', () => {
  const req = { method: 'DELETE' as const, url: '/api/enterprise/webhooks/whs_1' };

  it('deletes and says so', async () => {
    h.answer('webhooks', 'deleteSubscription', async () => ({ id: 'whs_1', deleted: true }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, id: 'whs_1', deleted: true });
  });

  sessionGuarantees(req, 'deleteSubscription');
});

const ADMIN = { scope: 'admin.*', wrongScope: 'transactions.read' };

describe('POST /api/v1/webhooks', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: {
      method: 'POST',
      url: '/api/v1/webhooks',
      payload: { url: 'https://shop.example/hook', events: ['voucher.redeemed'] },
    },
    call: 'createEndpoint',
    answer: () => webhookEndpoint({ secret: 'whsec_1' }),
    status: 201,
    shape: { id: 'we_1', url: 'https://shop.example/hook', events: ['voucher.redeemed'], secret: 'whsec_1' },
    sent: { url: 'https://shop.example/hook', events: ['voucher.redeemed'] },
    bad: { payload: { events: ['voucher.redeemed'] }, param: 'url' },
    error: new HallmarkError('parameter_invalid', { param: 'url' }),
  }));

describe('GET /api/v1/webhooks', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/webhooks' },
    call: 'listEndpoints',
    answer: () => ({ endpoints: [webhookEndpoint()], pagination: pageInfo }),
    status: 200,
    shape: { webhooks: [{ id: 'we_1' }], pagination: { total: 1 } },
    sent: {},
    bad: { url: '/api/v1/webhooks?limit=0', param: 'limit' },
    error: new HallmarkError('service_unavailable'),
  }));

describe('GET /api/v1/webhooks/:webhook_id', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/webhooks/we_1' },
    call: 'getEndpoint',
    answer: () => webhookEndpoint(),
    status: 200,
    shape: { id: 'we_1', status: 'enabled' },
    sent: { endpoint_id: 'we_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('PATCH /api/v1/webhooks/:webhook_id', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'PATCH', url: '/api/v1/webhooks/we_1', payload: { events: ['voucher.created'] } },
    call: 'updateEndpoint',
    answer: () => webhookEndpoint({ events: ['voucher.created'] }),
    status: 200,
    shape: { id: 'we_1', events: ['voucher.created'] },
    sent: { events: ['voucher.created'], set_events: true },
    bad: { payload: { status: 'gone' }, param: 'status' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('DELETE /api/v1/webhooks/:webhook_id', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'DELETE', url: '/api/v1/webhooks/we_1' },
    call: 'deleteEndpoint',
    answer: () => ({ id: 'we_1', deleted: true }),
    status: 200,
    shape: { id: 'we_1', deleted: true },
    sent: { endpoint_id: 'we_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('GET /api/v1/webhooks/:webhook_id/deliveries', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/webhooks/we_1/deliveries?status=failed' },
    call: 'listDeliveries',
    answer: () => ({ deliveries: [delivery({ status: 'failed' })], pagination: pageInfo }),
    status: 200,
    shape: { deliveries: [{ id: 'wd_1', webhook_id: 'we_1', next_attempt_at: null, attempt_log: [] }] },
    sent: { status: 'failed' },
    bad: { url: '/api/v1/webhooks/we_1/deliveries?status=lost', param: 'status' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/webhooks/we_1/deliveries/wd_1/retry' },
    call: 'retryDelivery',
    answer: () => delivery(),
    status: 202,
    shape: { id: 'wd_1', status: 'pending' },
    sent: { delivery_id: 'wd_1' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/webhooks/:webhook_id/test', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/webhooks/we_1/test', payload: { event_type: 'voucher.created' } },
    call: 'sendTestEvent',
    answer: () => delivery({ event_type: 'voucher.created' }),
    status: 202,
    shape: { id: 'wd_1', event_type: 'voucher.created' },
    sent: { event_type: 'voucher.created' },
    bad: { payload: { event_type: 'x'.repeat(101) }, param: 'event_type' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('POST /api/v1/webhooks/:webhook_id/rotate-secret', () =>
  routeCase(() => h, 'webhooks', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/webhooks/we_1/rotate-secret', payload: { overlap_seconds: 60 } },
    call: 'rotateSecret',
    answer: () => webhookEndpoint({ secret: 'whsec_2' }),
    status: 200,
    shape: { id: 'we_1', secret: 'whsec_2' },
    sent: { overlap_seconds: 60 },
    bad: { payload: { overlap_seconds: -1 }, param: 'overlap_seconds' },
    error: new HallmarkError('resource_not_found'),
  }));

describe('PATCH /api/enterprise/webhooks/:webhook_id', () => {
  const req = {
    method: 'PATCH' as const,
    url: '/api/enterprise/webhooks/whs_1',
    payload: { enabled: true },
  };

  it('re-enables a subscription and shows its health', async () => {
    h.answer('webhooks', 'updateSubscription', async () =>
      sub({ status: 'active', consecutive_failures: 0 }),
    );
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      webhook: {
        id: 'whs_1',
        status: 'active',
        consecutiveFailures: 0,
        lastFailureAt: null,
        lastError: null,
      },
    });
    expect(h.callsTo('webhooks', 'updateSubscription')[0]).toMatchObject({
      subscription_id: 'whs_1',
      enabled: true,
    });
  });

  it('refuses a body without enabled with 400 naming it, before any call', async () => {
    const res = await h.app.inject({ ...req, payload: {}, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'enabled' });
    expect(h.calls).toEqual([]);
  });

  sessionGuarantees(req, 'updateSubscription');
});

describe('GET /api/enterprise/webhooks/:webhook_id/deliveries', () => {
  const req = { method: 'GET' as const, url: '/api/enterprise/webhooks/whs_1/deliveries?status=failed' };

  it('lists the deliveries with each attempt’s status and error', async () => {
    const failed = delivery({
      endpoint_id: '',
      subscription_id: 'whs_1',
      status: 'failed',
      attempts: 1,
      attempt_log: [
        { attempt: 1, attempted_at: '2025-01-01T00:00:00.000Z', latency_ms: 3, error: 'ECONNREFUSED' },
      ],
    });
    h.answer('webhooks', 'listSubscriptionDeliveries', async () => ({
      deliveries: [failed],
      pagination: pageInfo,
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      deliveries: [
        {
          webhook_id: 'whs_1',
          status: 'failed',
          attempt_log: [{ attempt: 1, status_code: null, error: 'ECONNREFUSED' }],
        },
      ],
      pagination: pageInfo,
    });
    expect(h.callsTo('webhooks', 'listSubscriptionDeliveries')[0]).toMatchObject({
      subscription_id: 'whs_1',
      status: 'failed',
    });
  });

  it('refuses an unknown status with 400 naming it, before any call', async () => {
    const res = await h.app.inject({
      ...req,
      url: `${req.url.split('?')[0]}?status=lost`,
      headers: h.session,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'status' });
    expect(h.calls).toEqual([]);
  });

  sessionGuarantees(req, 'listSubscriptionDeliveries');
});

describe('POST /api/enterprise/webhooks/:webhook_id/test', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/enterprise/webhooks/whs_1/test',
    payload: { event_type: 'voucher.minted' },
  };

  it('queues a test delivery (202)', async () => {
    h.answer('webhooks', 'sendSubscriptionTest', async () =>
      delivery({ endpoint_id: '', subscription_id: 'whs_1', event_type: 'voucher.minted' }),
    );
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      success: true,
      delivery: { webhook_id: 'whs_1', event_type: 'voucher.minted', status: 'pending' },
    });
    expect(h.callsTo('webhooks', 'sendSubscriptionTest')[0]).toMatchObject({
      subscription_id: 'whs_1',
      event_type: 'voucher.minted',
    });
  });

  sessionGuarantees(
    req,
    'sendSubscriptionTest',
    new HallmarkError('parameter_invalid', { param: 'event_type' }),
    "the service's parameter_invalid (an unknown type)",
  );
});

describe('POST /api/enterprise/webhooks/:webhook_id/deliveries/:delivery_id/retry', () => {
  const req = { method: 'POST' as const, url: '/api/enterprise/webhooks/whs_1/deliveries/dlv_1/retry' };

  it('queues the delivery again (202) and names the subscription and the delivery to the service', async () => {
    h.answer('webhooks', 'retrySubscriptionDelivery', async () =>
      delivery({
        id: 'dlv_1',
        endpoint_id: '',
        subscription_id: 'whs_1',
        status: 'pending',
        max_attempts: 7,
      }),
    );
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      success: true,
      delivery: { id: 'dlv_1', webhook_id: 'whs_1', status: 'pending', max_attempts: 7 },
    });
    expect(h.callsTo('webhooks', 'retrySubscriptionDelivery')).toEqual([
      expect.objectContaining({
        subscription_id: 'whs_1',
        delivery_id: 'dlv_1',
        principal: expect.anything(),
      }),
    ]);
    expect(h.callsTo('webhooks', 'retrySubscriptionDelivery')[0].principal.enterprise_id).toBe(ENT);
  });

  it('refuses an over-long delivery id with 400 naming it, before any call', async () => {
    const url = `/api/enterprise/webhooks/whs_1/deliveries/${'d'.repeat(65)}/retry`;
    const res = await h.app.inject({ ...req, url, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, param: 'delivery_id' });
    expect(h.calls).toEqual([]);
  });

  sessionGuarantees(req, 'retrySubscriptionDelivery');
});
