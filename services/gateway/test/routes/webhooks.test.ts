// routes/webhooks/: the versioned endpoints and the enterprise dashboard's subscriptions.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const sub = (over: object = {}) => ({
  id: 'whs_1',
  url: 'https://shop.example/hook',
  events: ['voucher.created'],
  enabled: true,
  created_at: '2025-01-01T00:00:00.000Z',
  ...over,
});

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

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's parameter_invalid (a non-https url) to the api envelope", async () => {
    await expectMapped(
      h,
      ['webhooks', 'createSubscription'],
      new HallmarkError('parameter_invalid', { param: 'url' }),
      {
        ...req,
        headers: h.session,
      },
    );
  });
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

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's errors to the api envelope", async () => {
    await expectMapped(h, ['webhooks', 'listSubscriptions'], new HallmarkError('service_unavailable'), {
      ...req,
      headers: h.session,
    });
  });
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

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps another enterprise's subscription (404) to the api envelope", async () => {
    await expectMapped(h, ['webhooks', 'getSubscription'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('DELETE /api/enterprise/webhooks/:webhook_id', () => {
  const req = { method: 'DELETE' as const, url: '/api/enterprise/webhooks/whs_1' };

  it('deletes and says so', async () => {
    h.answer('webhooks', 'deleteSubscription', async () => ({ id: 'whs_1', deleted: true }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, id: 'whs_1', deleted: true });
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps another enterprise's subscription (404) to the api envelope", async () => {
    await expectMapped(h, ['webhooks', 'deleteSubscription'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
  });
});
