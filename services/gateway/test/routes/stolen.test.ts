// routes/certificates/stolen.ts: report, clear, list, recover and the clearing policy, each one
// call to LostAndStolenService with the caller's principal (the service decides brand, owner
// or nobody); 401/403 before any call; the service's refusals (409
// certificate_reported_stolen, 403, 404) in the unversioned envelope; the public read carries
// the flag.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError, subjectFor, type EventEnvelope } from '@hallmark/kit';
import { CERTIFICATE_EVENTS, certificateOf } from '../../src/cache/invalidation.js';
import { certificate } from './fixtures.js';
import { errorCode, expectRefusals, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const FLAG = { kind: 'stolen', reported_at: '2026-05-03T10:00:00.000Z', reported_by: 'owner' };
const REPORT = {
  certificate_id: 'cert_1',
  kind: 'stolen',
  reason: 'Taken from a car',
  reported_at: '2026-05-03T10:00:00.000Z',
  reported_by: { type: 'owner', id: 'user_1' },
};
const stolenCert = () => ({ ...certificate(), stolen: FLAG });
const reportedStolen = new HallmarkError('certificate_reported_stolen', {
  message:
    'Certificate cert_1 was reported stolen on 2026-05-03; it cannot be reported again until the report is cleared.',
});

describe('POST /api/certificates/:id/stolen', () => {
  routeCase(() => h, 'stolen', {
    req: {
      method: 'POST',
      url: '/api/certificates/cert_1/stolen',
      payload: { kind: 'stolen', reason: 'Taken from a car' },
    },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'reportStolen',
    answer: () => ({ report: REPORT, certificate: stolenCert() }),
    status: 201,
    shape: {
      success: true,
      report: {
        kind: 'stolen',
        reason: 'Taken from a car',
        reportedBy: { type: 'owner', id: 'user_1' },
        clearedAt: null,
      },
      certificate: {
        id: 'cert_1',
        stolen: { kind: 'stolen', reportedAt: FLAG.reported_at, reportedBy: 'owner' },
      },
    },
    sent: { certificate_id: 'cert_1', kind: 'stolen', reason: 'Taken from a car' },
    bad: { payload: { kind: 'misplaced', reason: 'x' }, param: 'kind' },
    error: reportedStolen,
  });

  it('passes a user session’s principal on (the owner is told apart by the service, not the gateway)', async () => {
    h.answer('stolen', 'reportStolen', async () => ({ report: REPORT, certificate: stolenCert() }));
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/cert_1/stolen',
      headers: h.session,
      payload: { kind: 'lost', reason: 'Left on a train' },
    });
    expect(res.statusCode).toBe(201);
    expect(h.callsTo('stolen', 'reportStolen')[0]).toMatchObject({
      principal: { actor_type: 'user' },
      kind: 'lost',
    });
  });

  it('maps a stranger’s attempt (the service answers not found) to 404, and refuses an empty reason with 400', async () => {
    h.answer('stolen', 'reportStolen', async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
    });
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/cert_1/stolen',
      headers: h.keyWith(['transactions.update']),
      payload: { kind: 'stolen', reason: 'x' },
    });
    expect(res.statusCode).toBe(404);
    const empty = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/cert_1/stolen',
      headers: h.keyWith(['transactions.update']),
      payload: { kind: 'stolen', reason: '' },
    });
    expect(empty.statusCode).toBe(400);
    expect(errorCode(empty.json())).toBe('parameter_invalid');
  });
});

describe('POST /api/certificates/:id/stolen/clear', () => {
  routeCase(() => h, 'stolen', {
    req: {
      method: 'POST',
      url: '/api/certificates/cert_1/stolen/clear',
      payload: { reason: 'Found at home' },
    },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'clearStolen',
    answer: () => ({
      report: {
        ...REPORT,
        cleared_at: '2026-05-04T10:00:00.000Z',
        cleared_by: { type: 'brand', id: 'apikey_1' },
        clear_reason: 'Found at home',
      },
      certificate: certificate(),
    }),
    status: 200,
    shape: {
      success: true,
      report: { clearReason: 'Found at home', clearedBy: { type: 'brand' } },
      certificate: { stolen: null },
    },
    sent: { certificate_id: 'cert_1', reason: 'Found at home' },
    bad: { payload: {}, param: 'reason' },
    error: new HallmarkError('insufficient_permissions', {
      message: 'Only the brand may clear this report.',
    }),
  });
});

describe('GET /api/certificates/:id/stolen', () => {
  routeCase(() => h, 'stolen', {
    req: { method: 'GET', url: '/api/certificates/cert_1/stolen' },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'listStolenReports',
    answer: () => ({ reports: [REPORT] }),
    status: 200,
    shape: { success: true, reports: [{ certificateId: 'cert_1', reason: 'Taken from a car' }] },
    sent: { certificate_id: 'cert_1' },
    error: new HallmarkError('resource_not_found', { message: 'No such certificate.' }),
  });
});

describe('POST /api/certificates/:id/recover', () => {
  routeCase(() => h, 'stolen', {
    req: {
      method: 'POST',
      url: '/api/certificates/cert_1/recover',
      payload: { idempotencyKey: 'rec-1', toUserId: 'user_2', reason: 'Police report 42' },
    },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'recoverCertificate',
    answer: () => ({
      status: 'confirmed',
      to_address: '0x00000000000000000000000000000000000000aa',
      transaction_hash: `0x${'ab'.repeat(32)}`,
      replayed: false,
      certificate: certificate(),
    }),
    status: 200,
    shape: {
      success: true,
      status: 'confirmed',
      toAddress: '0x00000000000000000000000000000000000000aa',
      replayed: false,
    },
    sent: {
      certificate_id: 'cert_1',
      idempotency_key: 'rec-1',
      to_user_id: 'user_2',
      reason: 'Police report 42',
    },
    bad: { payload: { idempotencyKey: 'k', toAddress: 'nope', reason: 'x' }, param: 'toAddress' },
    error: new HallmarkError('validation_failed', {
      message: 'The certificate is held by a self-custody wallet.',
    }),
  });
});

describe('PUT /api/enterprise/stolen-policy', () => {
  routeCase(() => h, 'stolen', {
    req: {
      method: 'PUT',
      url: '/api/enterprise/stolen-policy',
      payload: { stolenClearedBy: 'brand_or_reporter' },
    },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'setStolenPolicy',
    answer: () => ({ cleared_by: 'brand_or_reporter' }),
    status: 200,
    shape: { success: true, stolenClearedBy: 'brand_or_reporter' },
    sent: { cleared_by: 'brand_or_reporter' },
    bad: { payload: { stolenClearedBy: 'anyone' }, param: 'stolenClearedBy' },
    error: new HallmarkError('parameter_invalid', { param: 'cleared_by', message: 'bad' }),
  });
});

describe('GET /api/enterprise/stolen-policy', () => {
  it('answers the policy (default brand) to a key or session', async () => {
    h.answer('stolen', 'getStolenPolicy', async () => ({ cleared_by: 'brand' }));
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/enterprise/stolen-policy',
      headers: h.session,
    });
    expect(res.json()).toEqual({ success: true, stolenClearedBy: 'brand' });
  });

  it('is 401 without a credential, 403 with transactions.read only', async () => {
    await expectRefusals(
      h,
      { method: 'GET', url: '/api/enterprise/stolen-policy' },
      h.keyWith(['transactions.read']),
    );
  });
});

describe('the public read carries the flag', () => {
  it('GET /api/certificate/public/:id shows stolen {kind, reportedAt, reportedBy} and never a reason', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => stolenCert());
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    expect(res.json().stolen).toEqual({ kind: 'stolen', reportedAt: FLAG.reported_at, reportedBy: 'owner' });
    expect(res.body).not.toContain('Taken from a car');
  });
});

describe('the public cache hears the lost-and-stolen events', () => {
  it('certificate.reported_stolen and certificate.recovered fall under the invalidation filter and name their certificate', () => {
    const filter = new RegExp(`^${CERTIFICATE_EVENTS.replace(/\./g, '\\.').replace('>', '.+')}$`);
    for (const type of ['certificate.reported_stolen', 'certificate.recovered']) {
      expect(subjectFor('certificates', type)).toMatch(filter);
      const event = {
        type,
        data: { object: { id: 'cert_1', tokenId: 7, holderAddress: '0x1' } },
      } as unknown as EventEnvelope;
      expect(certificateOf(event)).toEqual({ id: 'cert_1', tokenId: 7 });
    }
  });
});
