// routes/webhooks/listen.ts: GET /api/v1/listen, the listen session as Server-Sent Events.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { delivery, pageInfo } from './fixtures.js';
import { errorCode, expectRefusals, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const session = {
  id: 'lsn_1',
  secret: 'whsec_abc',
  livemode: false,
  events: [],
  created_at: '2025-01-01T00:00:00.000Z',
};
const event = {
  delivery_id: 'dlv_1',
  event_id: 'evt_1',
  event_type: 'transaction.completed',
  body: '{"id":"evt_1","type":"transaction.completed"}',
  headers: { 'x-service-signature': 't=1,v1=ab', 'content-type': 'application/json' },
  attempt: 1,
};

/** The SSE frames of a body: [{event, id?, data}]. */
function frames(body: string) {
  return body
    .split('\n\n')
    .filter((f) => f && !f.startsWith(':'))
    .map((f) => {
      const fields = Object.fromEntries(
        f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      );
      return { event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? 'null') };
    });
}

describe('GET /api/v1/listen', () => {
  const req = {
    method: 'GET' as const,
    url: '/api/v1/listen?events=transaction.completed,bulk.job.completed',
  };

  it('streams the session, then each event with its exact body and headers, in test mode by default', async () => {
    h.answer('webhooks', 'listen', async () => [{ session }, { event }]);
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(frames(res.body)).toEqual([
      { event: 'session', data: session },
      {
        event: 'transaction.completed',
        id: 'dlv_1',
        data: {
          id: 'dlv_1',
          event_id: 'evt_1',
          type: 'transaction.completed',
          attempt: 1,
          headers: event.headers,
          body: event.body,
        },
      },
    ]);
    expect(h.callsTo('webhooks', 'listen')[0]).toMatchObject({
      events: ['transaction.completed', 'bulk.job.completed'],
      principal: { livemode: false },
    });
  });

  it('listens live on request with a session', async () => {
    h.answer('webhooks', 'listen', async () => [{ session: { ...session, livemode: true } }]);
    const res = await h.app.inject({ ...req, url: '/api/v1/listen?mode=live', headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(h.callsTo('webhooks', 'listen')[0]).toMatchObject({ events: [], principal: { livemode: true } });
  });

  it('keeps a key to its own mode: a live key listens live, and cannot ask for test (400 naming mode)', async () => {
    h.answer('webhooks', 'listen', async () => [{ session }]);
    const live = h.keyWith(['admin.*']);
    expect((await h.app.inject({ ...req, headers: live })).statusCode).toBe(200);
    expect(h.callsTo('webhooks', 'listen')[0]).toMatchObject({ principal: { livemode: true } });
    h.reset();
    const res = await h.app.inject({ ...req, url: '/api/v1/listen?mode=test', headers: live });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    expect(h.calls).toEqual([]);
  });

  it('refuses an unknown mode with 400 naming it, before any call', async () => {
    const res = await h.app.inject({ ...req, url: '/api/v1/listen?mode=prod', headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('mode');
    expect(h.calls).toEqual([]);
  });

  it('is 401 without a credential, 403 without admin.*', async () => {
    await expectRefusals(h, req, h.keyWith(['vouchers.read']));
  });

  it("maps the service's refusal (an unknown event type) to the envelope, not a stream", async () => {
    h.answer('webhooks', 'listen', async () => {
      throw new HallmarkError('parameter_invalid', { param: 'events[1]' });
    });
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res.json())).toBe('parameter_invalid');
    expect(res.json().error.param).toBe('events[1]');
  });
});

describe('GET /api/v1/listen/sessions/:session_id/deliveries', () =>
  routeCase(() => h, 'webhooks', {
    scope: 'admin.*',
    wrongScope: 'vouchers.read',
    req: { method: 'GET', url: '/api/v1/listen/sessions/lsn_1/deliveries?status=failed' },
    call: 'listListenDeliveries',
    answer: () => ({
      deliveries: [delivery({ endpoint_id: '', session_id: 'lsn_1', status: 'failed' })],
      pagination: pageInfo,
    }),
    status: 200,
    shape: { deliveries: [{ webhook_id: 'lsn_1', status: 'failed' }], pagination: pageInfo },
    sent: { session_id: 'lsn_1', status: 'failed' },
    bad: { url: '/api/v1/listen/sessions/lsn_1/deliveries?status=lost', param: 'status' },
    error: new HallmarkError('resource_not_found'),
  }));
