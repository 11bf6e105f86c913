// routes/certificate-vouchers/: a certificate voucher's page, its public read and its claim
// (not a discount voucher: those are routes/discount-vouchers/).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificateVoucher } from './fixtures.js';
import { expectMapped, expectRefusals, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const view = () => ({
  voucher: certificateVoucher(),
  // As the service writes it (getPublic): every field, since the answer is serialised by its
  // declared schema.
  certificate_json: JSON.stringify({
    id: 'cert_1',
    name: 'Lamp',
    imageUrl: null,
    metadata: { color: 'brass' },
    status: 'minted',
    tokenId: 7,
    transactionHash: null,
    blockNumber: null,
  }),
  enterprise_id: 'ent_1',
});

describe('GET /vouchers/:id', () => {
  it('renders the voucher page through the shared shell, without a credential', async () => {
    h.answer('certificateVouchers', 'getPublicVoucher', async () => view());
    const res = await h.app.inject({ method: 'GET', url: '/vouchers/cv_1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('REF-1');
  });

  it('never tells a voucher that cannot be claimed (its certificate in another hand-over) that it is waiting, nor how to claim it', async () => {
    h.answer('certificateVouchers', 'getPublicVoucher', async () => ({
      ...view(),
      voucher: certificateVoucher({ status: 'unavailable' }),
    }));
    const res = await h.app.inject({ method: 'GET', url: '/vouchers/cv_1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('data-status="unavailable"');
    expect(res.body).toContain('This voucher cannot be claimed');
    expect(res.body).not.toContain('waiting for its owner');
    expect(res.body).not.toContain('How to claim');
  });

  it('is a 404 page for an unknown voucher and a 503 page when the service fails', async () => {
    h.answer('certificateVouchers', 'getPublicVoucher', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const unknown = await h.app.inject({ method: 'GET', url: '/vouchers/cv_2' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    h.answer('certificateVouchers', 'getPublicVoucher', async () => {
      throw new HallmarkError('service_unavailable');
    });
    const down = await h.app.inject({ method: 'GET', url: '/vouchers/cv_1' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('GET /api/certificates/vouchers/:id', () => {
  const req = { method: 'GET' as const, url: '/api/certificates/vouchers/cv_1' };

  it('answers the voucher and its certificate without a credential', async () => {
    h.answer('certificateVouchers', 'getPublicVoucher', async () => view());
    const res = await h.app.inject(req);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      data: {
        voucher: { id: 'cv_1', referenceNumber: 'REF-1', certificateId: 'cert_1', claimedAt: null },
        certificate: { id: 'cert_1' },
      },
    });
  });

  it('is 404 in the api envelope for an id that cannot be one (no call) and an unknown voucher', async () => {
    const bad = await h.app.inject({ method: 'GET', url: '/api/certificates/vouchers/%3Cx%3E' });
    expect(bad.statusCode).toBe(404);
    expect(h.calls).toEqual([]);
    await expectMapped(
      h,
      ['certificateVouchers', 'getPublicVoucher'],
      new HallmarkError('resource_not_found'),
      {
        ...req,
        headers: {},
      },
    );
  });
});

describe('POST /api/certificates/vouchers/:id/claim', () => {
  const req = { method: 'POST' as const, url: '/api/certificates/vouchers/cv_1/claim' };
  const claimed = (transfer_status: string) => ({
    voucher: certificateVoucher({ status: 'claimed' }),
    transfer_status,
    to_address: '0x' + '22'.repeat(20),
    replayed: false,
  });

  it("claims with the session's e-mail: 200 once confirmed, 202 while on its way", async () => {
    h.answer('certificateVouchers', 'claimVoucher', async () => claimed('confirmed'));
    const done = await h.app.inject({ ...req, headers: h.session });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ success: true, data: { voucherId: 'cv_1', status: 'confirmed' } });
    expect(h.callsTo('certificateVouchers', 'claimVoucher')[0]).toMatchObject({
      voucher_id: 'cv_1',
      recipient_email: 'alice@example.com',
    });
    h.answer('certificateVouchers', 'claimVoucher', async () => claimed('pending'));
    const pending = await h.app.inject({ ...req, headers: h.session });
    expect(pending.statusCode).toBe(202);
  });

  it('takes only a user session', async () => {
    await expectSessionOnly(h, req);
  });

  it("maps the service's refusals (403 another recipient, 422 claimed) to the api envelope", async () => {
    await expectMapped(
      h,
      ['certificateVouchers', 'claimVoucher'],
      new HallmarkError('insufficient_permissions'),
      {
        ...req,
        headers: h.session,
      },
    );
    await expectMapped(h, ['certificateVouchers', 'claimVoucher'], new HallmarkError('validation_failed'), {
      ...req,
      headers: h.session,
    });
  });
});

describe('POST /api/certificates/vouchers/:voucherId/void', () => {
  const url = '/api/certificates/vouchers/v_abc123/void';
  const answer = (voided: string[], claimed: string[]) =>
    h.answer('certificateVouchers', 'voidVouchers', async () => ({
      voided_ids: voided,
      claimed_ids: claimed,
    }));

  it('voids with a key holding transactions.delete, passing the reason (or the default) in one call', async () => {
    answer(['v_abc123'], []);
    const key = h.keyWith(['transactions.delete']);
    const res = await h.app.inject({
      method: 'POST',
      url,
      headers: key,
      payload: { reason: 'Order refunded' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { id: 'v_abc123', status: 'voided' } });
    expect(h.callsTo('certificateVouchers', 'voidVouchers')[0]).toMatchObject({
      voucher_ids: ['v_abc123'],
      reason: 'Order refunded',
    });
    const bare = await h.app.inject({ method: 'POST', url, headers: key });
    expect(bare.statusCode).toBe(200);
    expect(h.callsTo('certificateVouchers', 'voidVouchers')[1]).toMatchObject({
      reason: 'Voided by the issuer.',
    });
  });

  it('is 401 without a credential and 403 without the scope, before any call', async () => {
    await expectRefusals(h, { method: 'POST', url }, h.keyWith(['transactions.read']));
  });

  it('a claimed voucher is 422; an unknown one, another enterprise’s, or an id that is not a voucher id is 404', async () => {
    const key = h.keyWith(['transactions.delete']);
    answer([], ['v_abc123']);
    const claimed = await h.app.inject({ method: 'POST', url, headers: key });
    expect(claimed.statusCode).toBe(422);
    expect(claimed.json()).toMatchObject({ code: 'validation_failed' });
    answer([], []);
    const unknown = await h.app.inject({ method: 'POST', url, headers: key });
    expect(unknown.statusCode).toBe(404);
    h.reset();
    const reference = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/vouchers/HM-ABCD-EFGH-1/void',
      headers: key,
    });
    expect(reference.statusCode).toBe(404);
    expect(h.calls).toEqual([]);
  });
});
