// routes/resale/: ownership links (the owner's session makes them; the public proof answers
// without a credential, unknown tokens counted) and export to the owner's own wallet.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { expectMapped, expectSessionOnly, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT: '3' });
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

describe('POST /api/certificates/ownership-links', () => {
  it('the owner’s session makes one: 201 with the token and its public URL, never cached; ttlHours over 720 is 400', async () => {
    const token = 'L'.repeat(43);
    h.answer('ownership', 'createOwnershipLink', async () => ({
      token,
      link: {
        id: 'ownlink_1',
        certificate_id: 'cert_1',
        holder_address: '0x' + '11'.repeat(20),
        expires_at: '2026-12-02T00:00:00.000Z',
        created_at: '2026-11-29T00:00:00.000Z',
      },
    }));
    const req = {
      method: 'POST' as const,
      url: '/api/certificates/ownership-links',
      payload: { certificateId: 'cert_1' },
    };
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toMatchObject({ token, url: `https://hallmark.test/api/ownership/${token}` });
    expect(h.callsTo('ownership', 'createOwnershipLink')[0]).toMatchObject({ ttl_hours: 0 });
    h.reset();
    const long = await h.app.inject({
      ...req,
      payload: { certificateId: 'cert_1', ttlHours: 721 },
      headers: h.session,
    });
    expect(long.statusCode).toBe(400);
    expect(h.calls).toEqual([]);
    await expectSessionOnly(h, req);
  });
});

describe('GET /api/ownership/:token', () => {
  it('the public proof answers without a credential; unknown tokens are counted and then refused 429 before any look-up', async () => {
    h.answer('ownership', 'getOwnershipProof', async (r: { token: string }) => {
      if (r.token !== 'good') throw new HallmarkError('resource_not_found', { param: 'token' });
      return {
        status: 'owned',
        as_of: '2026-11-29T00:00:00.000Z',
        expires_at: '2026-12-02T00:00:00.000Z',
        created_at: '2026-11-29T00:00:00.000Z',
        certificate_id: 'cert_1',
        token_id: 7,
      };
    });
    const good = await h.app.inject({
      method: 'GET',
      url: '/api/ownership/good',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toMatchObject({ status: 'owned', certificateId: 'cert_1', holderAddress: null });
    expect(good.headers['cache-control']).toBe('no-store');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await h.app.inject({ method: 'GET', url: `/api/ownership/bad${i}` })).statusCode);
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(h.callsTo('ownership', 'getOwnershipProof').length).toBe(4);
  });
});

describe('POST /api/certificates/export', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/certificates/export',
    payload: {
      certificateId: 'cert_1',
      toAddress: '0x' + '22'.repeat(20),
      deadline: 1_900_000_000,
      signature: '0xab',
    },
  };
  it('passes the signature on and answers the transfer; a bad address is 400; session only', async () => {
    h.answer('ownership', 'exportCertificate', async () => ({
      status: 'confirmed',
      transaction_hash: '0x' + 'a'.repeat(64),
      to_address: '0x' + '22'.repeat(20),
      replayed: false,
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'confirmed', replayed: false });
    expect(h.callsTo('ownership', 'exportCertificate')[0]).toMatchObject({
      signature: '0xab',
      deadline: 1_900_000_000,
    });
    h.reset();
    const bad = await h.app.inject({
      ...req,
      payload: { ...req.payload, toAddress: 'me' },
      headers: h.session,
    });
    expect(bad.statusCode).toBe(400);
    await expectSessionOnly(h, req);
  });

  it('maps a wrong signature (validation_failed) to 422', () =>
    expectMapped(
      h,
      ['ownership', 'exportCertificate'],
      new HallmarkError('validation_failed', { param: 'signature' }),
      {
        ...req,
        headers: h.session,
      },
    ));
});
