// GET /api/v1/webhooks/event-types: what an endpoint may subscribe to, the same table notify
// checks a subscription against, behind the same credential as the other webhook endpoints.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VERSIONED_EVENT_TYPES } from '@hallmark/kit/events';
import { expectRefusals, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());

describe('GET /api/v1/webhooks/event-types', () => {
  const req = { method: 'GET' as const, url: '/api/v1/webhooks/event-types' };

  it('lists every versioned event type notify accepts, with no call to a service', async () => {
    const res = await h.app.inject({ ...req, headers: h.keyWith(['admin.*']) });
    expect(res.statusCode).toBe(200);
    const types = res.json().data.map((t: { type: string }) => t.type);
    expect(types).toEqual([...VERSIONED_EVENT_TYPES]);
    expect(types).toEqual(expect.arrayContaining(['transaction.completed', 'discount_voucher.created']));
    expect(h.calls).toEqual([]);
  });

  it('is not a webhook id: a static path wins over /api/v1/webhooks/:webhook_id', async () => {
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([]);
  });

  it('needs a credential with admin.*, as managing endpoints does', async () => {
    await expectRefusals(h, req, h.keyWith(['transactions.read']));
  });
});
