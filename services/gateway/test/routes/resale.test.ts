// routes/resale/: the owner's resale (session only, proven e-mail passed on), the brand's
// approve/refuse and policy (API key only: an owner's session never decides). Ownership links
// and export: ownership-links.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import {
  ENT,
  errorCode,
  expectMapped,
  expectSessionOnly,
  expectRefusals,
  startHarness,
  type Harness,
} from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT: '3' });
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const RESALE = 'gift_' + 'r'.repeat(24);
const resale = (over: object = {}) => ({
  id: RESALE,
  certificate_id: 'cert_1',
  token_id: 7,
  status: 'pending',
  seller_address: '0x' + '11'.repeat(20),
  expires_at: '2026-12-02T00:00:00.000Z',
  created_at: '2026-11-25T00:00:00.000Z',
  livemode: true,
  notification: 'pending',
  ...over,
});

describe('POST /api/certificates/resale/create', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/certificates/resale/create',
    payload: { certificateId: 'cert_1', buyerEmail: 'buyer@example.com' },
  };

  it('answers 201 with the resale (no claim token) and passes the session’s proven e-mail as the seller’s', async () => {
    h.answer('resale', 'createResale', async () =>
      resale({ approval: 'requested', status: 'awaiting_approval' }),
    );
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      resale: expect.objectContaining({
        resaleId: RESALE,
        status: 'awaiting_approval',
        approval: 'requested',
        tokenId: 7,
        buyerAddress: null,
      }),
    });
    expect(res.body).not.toMatch(/claimToken|buyer@example/);
    expect(h.callsTo('resale', 'createResale')[0]).toMatchObject({
      principal: { enterprise_id: ENT, actor_type: 'user' },
      certificate_id: 'cert_1',
      buyer_email: 'buyer@example.com',
      seller_email: 'alice@example.com',
    });
  });

  it('is a session-only route (no credential 401, an API key 401)', () => expectSessionOnly(h, req));

  it('refuses a missing buyerEmail with 400 before any call', async () => {
    const res = await h.app.inject({ ...req, payload: { certificateId: 'cert_1' }, headers: h.session });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('buyerEmail');
    expect(h.calls).toEqual([]);
  });

  it('maps a certificate in another hand-over to 409 resource_locked', () =>
    expectMapped(h, ['resale', 'createResale'], new HallmarkError('resource_locked'), {
      ...req,
      headers: h.session,
    }));
});

describe('POST /api/certificates/resale/:resaleId/refuse', () => {
  const refuse = {
    method: 'POST' as const,
    url: `/api/certificates/resale/${RESALE}/refuse`,
    payload: { reason: 'Stolen' },
  };

  it('refuse: 200 with the resale as decided, the reason passed on; no reason is 400 before any call; 401/403 without the key’s scope', async () => {
    h.answer('resale', 'decideResale', async () =>
      resale({ status: 'revoked', approval: 'refused', approval_reason: 'Stolen' }),
    );
    const res = await h.app.inject({ ...refuse, headers: h.keyWith(['transactions.update']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      resale: { status: 'revoked', approval: 'refused', approvalReason: 'Stolen' },
    });
    expect(h.callsTo('resale', 'decideResale')[0]).toMatchObject({
      resale_id: RESALE,
      approve: false,
      reason: 'Stolen',
    });
    h.reset();
    const bad = await h.app.inject({ ...refuse, payload: {}, headers: h.keyWith(['transactions.update']) });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('reason');
    await expectRefusals(h, refuse, h.keyWith(['transactions.read']));
    await expectMapped(h, ['resale', 'decideResale'], new HallmarkError('validation_failed'), {
      ...refuse,
      headers: h.keyWith(['transactions.update']),
    });
  });
});

describe('POST /api/certificates/resale/:resaleId/approve', () => {
  it('approve passes approve=true; an owner’s session can neither approve nor refuse (401, no call)', async () => {
    h.answer('resale', 'decideResale', async () => resale({ approval: 'approved' }));
    const ok = await h.app.inject({
      method: 'POST',
      url: `/api/certificates/resale/${RESALE}/approve`,
      payload: {},
      headers: h.keyWith(['transactions.update']),
    });
    expect(ok.statusCode).toBe(200);
    expect(h.callsTo('resale', 'decideResale')[0]).toMatchObject({ approve: true });
    h.reset();
    for (const verb of ['approve', 'refuse']) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/certificates/resale/${RESALE}/${verb}`,
        payload: { reason: 'x' },
        headers: h.session,
      });
      expect(res.statusCode).toBe(401);
      expect(errorCode(res.json())).toBe('invalid_api_key');
    }
    expect(h.calls).toEqual([]);
  });
});

describe('PUT /api/certificates/resale-policy', () => {
  it('the policy is set by an admin key; a session or a key without admin.* is refused before any call', async () => {
    const put = {
      method: 'PUT' as const,
      url: '/api/certificates/resale-policy',
      payload: { approvalRequired: true },
    };
    h.answer('resale', 'setResalePolicy', async () => ({
      approval_required: true,
      updated_at: '2026-11-29T00:00:00.000Z',
    }));
    const res = await h.app.inject({ ...put, headers: h.keyWith(['admin.*']) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      approvalRequired: true,
      updatedAt: '2026-11-29T00:00:00.000Z',
    });
    expect(h.callsTo('resale', 'setResalePolicy')[0]).toMatchObject({ approval_required: true });
    h.reset();
    await expectRefusals(h, put, h.keyWith(['transactions.update']));
    const session = await h.app.inject({ ...put, headers: h.session });
    expect(session.statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});

describe('GET /api/certificates/resale/:resaleId', () => {
  it('the seller’s session or a key with transactions.read reads it; 401 without a credential', async () => {
    h.answer('resale', 'getResale', async () =>
      resale({ status: 'claimed', buyer_address: '0x' + '33'.repeat(20) }),
    );
    const url = `/api/certificates/resale/${RESALE}`;
    for (const headers of [h.session, h.keyWith(['transactions.read'])]) {
      const res = await h.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode).toBe(200);
      expect(res.json().resale).toMatchObject({ status: 'claimed', buyerAddress: '0x' + '33'.repeat(20) });
    }
    h.reset();
    await expectRefusals(h, { method: 'GET', url }, h.keyWith(['vouchers.read']));
  });
});

describe('POST /api/certificates/resale/:resaleId/cancel', () => {
  it('the owner’s session cancels; session only', async () => {
    const req = { method: 'POST' as const, url: `/api/certificates/resale/${RESALE}/cancel` };
    h.answer('resale', 'cancelResale', async () => resale({ status: 'revoked' }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json().resale.status).toBe('revoked');
    expect(h.callsTo('resale', 'cancelResale')[0]).toMatchObject({ resale_id: RESALE });
    h.reset();
    await expectSessionOnly(h, req);
  });
});

describe('GET /api/certificates/resale-policy', () => {
  it('an admin key reads the policy; a session is refused', async () => {
    h.answer('resale', 'getResalePolicy', async () => ({ approval_required: false }));
    const url = '/api/certificates/resale-policy';
    const res = await h.app.inject({ method: 'GET', url, headers: h.keyWith(['admin.*']) });
    expect(res.json()).toEqual({ success: true, approvalRequired: false, updatedAt: null });
    h.reset();
    expect((await h.app.inject({ method: 'GET', url, headers: h.session })).statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});

describe('POST /api/certificates/ownership-links/:linkId/revoke', () => {
  it('the owner’s session revokes; session only', async () => {
    const req = { method: 'POST' as const, url: '/api/certificates/ownership-links/ownlink_1/revoke' };
    h.answer('ownership', 'revokeOwnershipLink', async () => ({
      id: 'ownlink_1',
      certificate_id: 'cert_1',
      holder_address: '0x' + '11'.repeat(20),
      expires_at: '2026-12-02T00:00:00.000Z',
      revoked_at: '2026-11-29T01:00:00.000Z',
      created_at: '2026-11-29T00:00:00.000Z',
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.json().link).toMatchObject({ linkId: 'ownlink_1', revokedAt: '2026-11-29T01:00:00.000Z' });
    h.reset();
    await expectSessionOnly(h, req);
  });
});

describe('POST /api/certificates/export/prepare', () => {
  it('answers the typed data to sign as the service built it; session only', async () => {
    const typed = {
      primaryType: 'ExportCertificate',
      domain: { name: 'Hallmark Export' },
      message: { nonce: '1' },
    };
    h.answer('ownership', 'prepareExport', async () => ({ typed_data_json: JSON.stringify(typed) }));
    const req = {
      method: 'POST' as const,
      url: '/api/certificates/export/prepare',
      payload: { certificateId: 'cert_1', toAddress: '0x' + '22'.repeat(20) },
    };
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.json()).toEqual({ success: true, typedData: typed });
    h.reset();
    await expectSessionOnly(h, req);
  });
});

describe('POST /api/certificates/import/prepare', () => {
  it('answers the permit to sign; session only', async () => {
    const typed = { primaryType: 'TransferPermit', message: { to: '0x' + '11'.repeat(20) } };
    h.answer('ownership', 'prepareImport', async () => ({ typed_data_json: JSON.stringify(typed) }));
    const req = {
      method: 'POST' as const,
      url: '/api/certificates/import/prepare',
      payload: { certificateId: 'cert_1' },
    };
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.json()).toEqual({ success: true, typedData: typed });
    h.reset();
    await expectSessionOnly(h, req);
  });
});

describe('POST /api/certificates/import', () => {
  const req = {
    method: 'POST' as const,
    url: '/api/certificates/import',
    payload: { certificateId: 'cert_1', deadline: 1_900_000_000, signature: '0xab' },
  };
  it('passes the permit on and answers the transfer back; session only; a wrong signature is 422', async () => {
    h.answer('ownership', 'importCertificate', async () => ({
      status: 'confirmed',
      to_address: '0x' + '11'.repeat(20),
      replayed: false,
    }));
    const res = await h.app.inject({ ...req, headers: h.session });
    expect(res.json()).toMatchObject({
      status: 'confirmed',
      transactionHash: null,
      toAddress: '0x' + '11'.repeat(20),
    });
    expect(h.callsTo('ownership', 'importCertificate')[0]).toMatchObject({
      signature: '0xab',
      deadline: 1_900_000_000,
    });
    h.reset();
    await expectSessionOnly(h, req);
    await expectMapped(h, ['ownership', 'importCertificate'], new HallmarkError('validation_failed'), {
      ...req,
      headers: h.session,
    });
  });
});
