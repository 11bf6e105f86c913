// Messaging limits on gifts (docs/security.md › Messaging limits): every gift created and every
// resend e-mails or texts someone, so each is bounded per enterprise, whatever the gift — a
// create → revoke → create loop with a new address each time is refused past the limit. Low
// limits here (3 creates, 2 resends an hour) so the tests reach them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError, newId } from '@hallmark/kit';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT: '3',
    HALLMARK_GIFT_RESEND_ENTERPRISE_LIMIT: '2',
  });
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const gift = (n: number) => ({
  id: `gift_${String(n).padStart(24, 'a')}`,
  certificate_id: 'cert_1',
  status: 'pending',
  sender_address: '0x' + '11'.repeat(20),
  expires_at: '2026-12-02T00:00:00.000Z',
  created_at: '2026-11-25T00:00:00.000Z',
  livemode: true,
});

const create = (headers: Record<string, string>, n: number) =>
  h.app.inject({
    method: 'POST',
    url: '/api/certificates/gift/create',
    payload: {
      certificateId: 'cert_1',
      recipientEmail: `r${n}@example.com`,
      recipientPhone: `+1555000${n}00`,
    },
    headers,
  });

describe('gift messaging limits per enterprise', () => {
  it('refuses the gift past the enterprise limit with 429 and retry_after, however many credentials or addresses it uses', async () => {
    h.answer('gifts', 'createGift', async () => ({ gift: gift(1), claim_token: 'T'.repeat(43) }));
    h.answer('gifts', 'revokeGift', async () => ({ ...gift(1), status: 'revoked' }));
    const keyA = h.keyWith(['transactions.create']);
    const keyB = h.keyWith(['transactions.create']);
    // create → revoke → create, a new recipient each time, across two keys and a session.
    for (const [n, headers] of [keyA, keyB, h.session].entries()) {
      expect((await create(headers, n)).statusCode).toBe(201);
      const revoked = await h.app.inject({
        method: 'POST',
        url: `/api/certificates/gift/revoke/${gift(1).id}`,
        headers,
      });
      expect(revoked.statusCode).toBe(200);
    }
    const refused = await create(h.keyWith(['transactions.create']), 9);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    // The unversioned surface's envelope: {success:false, error, code, retry_after, request_id}.
    expect(body).toMatchObject({ success: false, code: 'rate_limit_exceeded' });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(refused.headers['retry-after']).toBe(String(body.retry_after));
    // Refused before the service: nothing was created, nobody was messaged.
    expect(h.callsTo('gifts', 'createGift')).toHaveLength(3);
  });

  it('counts each enterprise on its own, and not a create the service refused (nothing was sent)', async () => {
    // ENT's budget is spent by the test above; another enterprise's key still creates.
    const other = h.keyWith(['transactions.create'], { enterprise_id: newId('enterprise') });
    h.answer('gifts', 'createGift', async () => {
      throw new HallmarkError('validation_failed', { param: 'certificateId' });
    });
    for (let n = 0; n < 5; n++) expect((await create(other, n)).statusCode).toBe(422);
    h.answer('gifts', 'createGift', async () => ({ gift: gift(1), claim_token: 'T'.repeat(43) }));
    for (let n = 0; n < 3; n++) expect((await create(other, n)).statusCode).toBe(201);
    expect((await create(other, 4)).statusCode).toBe(429);
  });

  it('refuses the resend past the enterprise limit with 429 and retry_after, whichever gifts are resent', async () => {
    h.answer('gifts', 'resendGift', async () => ({ status: 'pending', method: 'email,sms' }));
    const resend = (n: number) =>
      h.app.inject({
        method: 'POST',
        url: `/api/certificates/gift/resend/${gift(n).id}`,
        headers: h.session,
      });
    expect((await resend(1)).statusCode).toBe(200);
    expect((await resend(2)).statusCode).toBe(200);
    const refused = await resend(3); // a third gift: its own per-gift budget is untouched
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limit_exceeded', retry_after: expect.any(Number) });
    expect(h.callsTo('gifts', 'resendGift')).toHaveLength(2);
  });
});
