// routes/gifts/: a certificate sent by a single-use claim link — create, read, resend and
// revoke by the sender; the public claim page; the recipient's claim by user session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const GIFT = 'gift_' + 'a'.repeat(24);
const TOKEN = 'T'.repeat(43);
const gift = (over: object = {}) => ({
  id: GIFT,
  certificate_id: 'cert_1',
  status: 'pending',
  sender_address: '0x' + '11'.repeat(20),
  expires_at: '2026-12-02T00:00:00.000Z',
  created_at: '2026-11-25T00:00:00.000Z',
  livemode: true,
  ...over,
});
const presented = {
  transferId: GIFT,
  certificateId: 'cert_1',
  recipientAddress: null,
  userOperationHash: null,
};

describe('POST /api/certificates/gift/create', () => {
  routeCase(() => h, 'gifts', {
    req: {
      method: 'POST',
      url: '/api/certificates/gift/create',
      payload: { certificateId: 'cert_1', recipientEmail: 'bob@example.com', message: 'For you' },
    },
    scope: 'transactions.create',
    wrongScope: 'vouchers.read',
    call: 'createGift',
    answer: () => ({ gift: gift(), claim_token: TOKEN }),
    status: 201,
    shape: {
      success: true,
      transferId: GIFT,
      status: 'pending',
      claimToken: TOKEN,
      claimUrl: `https://hallmark.test/claim/${TOKEN}`,
      gift: presented,
    },
    sent: { certificate_id: 'cert_1', recipient_email: 'bob@example.com', message: 'For you' },
    bad: { payload: { certificateId: 'cert_1' }, param: 'recipientEmail' },
    error: new HallmarkError('resource_not_found'),
  });

  it('never lets the claim token be cached', async () => {
    h.answer('gifts', 'createGift', async () => ({ gift: gift(), claim_token: TOKEN }));
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/gift/create',
      payload: { certificateId: 'cert_1', recipientEmail: 'bob@example.com' },
      headers: h.session,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /api/certificates/gift/:transferId', () => {
  routeCase(() => h, 'gifts', {
    req: { method: 'GET', url: `/api/certificates/gift/${GIFT}` },
    scope: 'transactions.create',
    wrongScope: 'vouchers.read',
    call: 'getGift',
    answer: () => gift({ status: 'claimed', transaction_hash: '0x' + 'ee'.repeat(32) }),
    status: 200,
    shape: {
      success: true,
      status: 'claimed',
      gift: { ...presented, transactionHash: '0x' + 'ee'.repeat(32) },
    },
    sent: { transfer_id: GIFT },
    error: new HallmarkError('resource_not_found'),
  });
});

describe('POST /api/certificates/gift/resend/:transferId', () => {
  routeCase(() => h, 'gifts', {
    req: { method: 'POST', url: `/api/certificates/gift/resend/${GIFT}` },
    scope: 'transactions.create',
    wrongScope: 'vouchers.read',
    call: 'resendGift',
    answer: () => ({ status: 'pending', method: 'email,sms' }),
    status: 200,
    shape: { success: true, status: 'pending', method: 'email,sms' },
    sent: { transfer_id: GIFT },
    error: new HallmarkError('insufficient_permissions'),
  });
});

describe('POST /api/certificates/gift/revoke/:transferId', () => {
  routeCase(() => h, 'gifts', {
    req: { method: 'POST', url: `/api/certificates/gift/revoke/${GIFT}` },
    scope: 'transactions.create',
    wrongScope: 'vouchers.read',
    call: 'revokeGift',
    answer: () => gift({ status: 'revoked' }),
    status: 200,
    shape: { success: true, status: 'revoked', gift: presented },
    sent: { transfer_id: GIFT },
    error: new HallmarkError('validation_failed'),
  });
});

describe('GET /claim/:token', () => {
  const view = {
    transfer_id: GIFT,
    status: 'pending',
    expires_at: '2026-12-02T00:00:00.000Z',
    message: 'Happy birthday <3',
    certificate_id: 'cert_1',
    certificate_name: 'Lamp',
  };

  it('renders the claim page through the shared shell, without a credential, escaping the message', async () => {
    h.answer('gifts', 'getGiftByToken', async () => view);
    const res = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Lamp');
    expect(res.body).toContain('Happy birthday &lt;3');
    expect(h.callsTo('gifts', 'getGiftByToken')[0]).toMatchObject({ token: TOKEN });
  });

  it('is a 404 page for an unknown link, a 410 page for a used one and a 503 page in an outage', async () => {
    h.answer('gifts', 'getGiftByToken', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const unknown = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    h.answer('gifts', 'getGiftByToken', async () => ({ ...view, status: 'claimed' }));
    const used = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(used.statusCode).toBe(410);
    h.answer('gifts', 'getGiftByToken', async () => {
      throw new HallmarkError('service_unavailable');
    });
    const down = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(down.statusCode).toBe(503);
    expect(down.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('GET /claim/:token', () => {
  it('says so (410) when its certificate is in another hand-over or no longer with the sender, never "claim it"', async () => {
    h.answer('gifts', 'getGiftByToken', async () => ({
      transfer_id: GIFT,
      status: 'unavailable',
      expires_at: '2026-12-02T00:00:00.000Z',
      certificate_id: 'cert_1',
      certificate_name: 'Lamp',
    }));
    const res = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('This gift cannot be claimed');
    expect(res.body).not.toContain('How to claim');
  });

  it('words a resale for its buyer (their purchase, the seller), never as a gift, also when it cannot be claimed', async () => {
    const resale = {
      transfer_id: GIFT,
      kind: 'resale',
      status: 'pending',
      expires_at: '2026-12-02T00:00:00.000Z',
      message: 'Enjoy it',
      certificate_id: 'cert_1',
      certificate_name: 'Lamp',
    };
    h.answer('gifts', 'getGiftByToken', async () => resale);
    const res = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('The certificate of your purchase is ready for you');
    expect(res.body).toContain('Message from the seller');
    expect(res.body).toContain('Lamp · your purchase · Hallmark');
    expect(res.body).not.toMatch(/gifted|a gift|Gift/); // (the claim API path says /gift/)
    h.answer('gifts', 'getGiftByToken', async () => ({ ...resale, status: 'revoked' }));
    const cancelled = await h.app.inject({ method: 'GET', url: `/claim/${TOKEN}` });
    expect(cancelled.statusCode).toBe(410);
    expect(cancelled.body).toContain('This resale was cancelled');
    expect(cancelled.body).not.toMatch(/gifted|a gift|Gift/);
  });
});

describe('POST /api/certificates/gift/claim/:token', () => {
  const req = { method: 'POST' as const, url: `/api/certificates/gift/claim/${TOKEN}` };

  it("claims with the recipient's session: 200 once the transfer is confirmed, 202 while on its way", async () => {
    const hash = '0x' + 'cd'.repeat(32);
    h.answer('gifts', 'claimGift', async () => ({
      gift: gift({ status: 'claimed', transaction_hash: hash }),
      replayed: false,
    }));
    const done = await h.app.inject({ ...req, headers: h.session });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({
      success: true,
      status: 'claimed',
      transactionHash: hash,
      userOperationHash: null,
      replayed: false,
    });
    expect(h.callsTo('gifts', 'claimGift')[0]).toMatchObject({ token: TOKEN });
    h.answer('gifts', 'claimGift', async () => ({ gift: gift({ status: 'claiming' }), replayed: false }));
    const pending = await h.app.inject({ ...req, headers: h.session });
    expect(pending.statusCode).toBe(202);
    expect(pending.json()).toMatchObject({ status: 'claiming', transactionHash: null });
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's refusals (404 unknown link, 422 used link) to the api envelope", async () => {
    await expectMapped(h, ['gifts', 'claimGift'], new HallmarkError('resource_not_found'), {
      ...req,
      headers: h.session,
    });
    await expectMapped(h, ['gifts', 'claimGift'], new HallmarkError('validation_failed'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('GET /api/certificates/gifts', () => {
  routeCase(() => h, 'gifts', {
    req: { method: 'GET', url: '/api/certificates/gifts?status=claimed&page=2&limit=1' },
    scope: 'transactions.read',
    wrongScope: 'vouchers.read',
    call: 'listGifts',
    answer: () => ({
      gifts: [gift({ status: 'claimed' })],
      page: { page: 2, limit: 1, total: 3, total_pages: 3 },
    }),
    status: 200,
    shape: {
      success: true,
      data: {
        gifts: [{ ...presented, status: 'claimed', livemode: true }],
        pagination: { page: 2, limit: 1, totalPages: 3, totalItems: 3 },
      },
    },
    sent: { status: 'claimed', page: { page: 2, limit: 1 } },
    bad: { url: '/api/certificates/gifts?status=expired', param: 'status' },
    error: new HallmarkError('parameter_invalid', { param: 'limit' }),
  });

  it('asks for the first page of 20 by default and takes the sender’s scope too', async () => {
    h.answer('gifts', 'listGifts', async () => ({
      gifts: [],
      page: { page: 1, limit: 20, total: 0, total_pages: 0 },
    }));
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/certificates/gifts',
      headers: h.keyWith(['transactions.create']),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { gifts: [], pagination: { page: 1, limit: 20, totalPages: 0, totalItems: 0 } },
    });
    expect(h.callsTo('gifts', 'listGifts')[0]).toMatchObject({ page: { page: 1, limit: 20 } });
  });

  it('refuses a page past the limits with 400 before any call', async () => {
    for (const q of ['limit=101', 'page=0', 'limit=abc', 'unknown=1']) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/certificates/gifts?${q}`,
        headers: h.session,
      });
      expect([q, res.statusCode]).toEqual([q, 400]);
    }
    expect(h.calls).toEqual([]);
  });
});
