// routes/certificates/service-records.ts: append (the brand or a repairer key with
// service_records.write only), list (the brand or the owner), accept and refuse (the owner, a
// user session), each one call to ServiceRecordsService with the caller's principal; 401/403
// before any call; the repairer key reaches nothing else; the service's refusals in the
// unversioned envelope; the public read carries the accepted service history.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError, subjectFor, type EventEnvelope } from '@hallmark/kit';
import { CERTIFICATE_EVENTS, certificateOf } from '../../src/cache/invalidation.js';
import { certificate } from './fixtures.js';
import { errorCode, expectMapped, expectRefusals, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const SHA = 'ab'.repeat(32);
const RECORD = {
  id: 'svcrec_1',
  certificate_id: 'cert_1',
  kind: 'repair',
  performed_at: '2026-03-02T00:00:00.000Z',
  performer: 'Atelier Roux',
  description: 'Mainspring replaced',
  attachments: [
    { kind: 'photo', sha256: SHA, content_type: 'image/png', width: 64, height: 48, caption: 'Dial' },
  ],
  added_by: { type: 'repairer', id: 'apikey_1' },
  created_at: '2026-03-03T00:00:00.000Z',
  status: 'pending',
};
const ENTRY = {
  id: 'svcrec_1',
  kind: 'repair',
  performed_at: RECORD.performed_at,
  performer: 'Atelier Roux',
  description: 'Mainspring replaced',
  attachments: RECORD.attachments,
  accepted_at: '2026-03-05T00:00:00.000Z',
};
const BODY = {
  kind: 'repair',
  performedAt: '2026-03-02',
  performer: 'Atelier Roux',
  description: 'Mainspring replaced',
  attachments: [{ kind: 'photo', url: 'https://repairs.test/dial.png', caption: 'Dial' }],
};

describe('POST /api/certificates/:id/service-records', () => {
  routeCase(() => h, 'serviceRecords', {
    req: { method: 'POST', url: '/api/certificates/cert_1/service-records', payload: BODY },
    scope: 'service_records.write',
    wrongScope: 'transactions.read',
    call: 'addServiceRecord',
    answer: () => RECORD,
    status: 201,
    shape: {
      success: true,
      record: {
        id: 'svcrec_1',
        kind: 'repair',
        status: 'pending',
        addedBy: { type: 'repairer', id: 'apikey_1' },
        attachments: [{ kind: 'photo', url: `/media/${SHA}`, caption: 'Dial' }],
        decidedAt: null,
      },
    },
    sent: {
      certificate_id: 'cert_1',
      kind: 'repair',
      performed_at: '2026-03-02',
      attachments: [{ kind: 'photo', url: 'https://repairs.test/dial.png', caption: 'Dial' }],
    },
    bad: { payload: { ...BODY, kind: 'polish' }, param: 'kind' },
    error: new HallmarkError('resource_not_found', { message: 'No such certificate.' }),
  });

  it('the brand’s key (transactions.update) appends too; an http attachment URL is refused 400 before any call', async () => {
    h.answer('serviceRecords', 'addServiceRecord', async () => ({
      ...RECORD,
      added_by: { type: 'brand', id: 'k' },
    }));
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/cert_1/service-records',
      headers: h.keyWith(['transactions.update']),
      payload: BODY,
    });
    expect(res.statusCode).toBe(201);
    h.reset();
    const http = await h.app.inject({
      method: 'POST',
      url: '/api/certificates/cert_1/service-records',
      headers: h.keyWith(['service_records.write']),
      payload: { ...BODY, attachments: [{ kind: 'photo', url: 'http://repairs.test/dial.png' }] },
    });
    expect(http.statusCode).toBe(400);
    expect(h.calls).toEqual([]);
  });
});

describe('GET /api/certificates/:id/service-records', () => {
  it('answers every record to the brand or the owner’s session, passing the principal on', async () => {
    h.answer('serviceRecords', 'listServiceRecords', async () => ({
      records: [
        RECORD,
        { ...RECORD, id: 'svcrec_2', status: 'refused', decided_at: '2026-03-04T00:00:00.000Z' },
      ],
    }));
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/certificates/cert_1/service-records',
      headers: h.session,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().records.map((r: { status: string }) => r.status)).toEqual(['pending', 'refused']);
    expect(h.callsTo('serviceRecords', 'listServiceRecords')[0]).toMatchObject({
      certificate_id: 'cert_1',
      principal: { actor_type: 'user' },
    });
  });

  it('is 401 without a credential, 403 for a repairer key (service_records.write only): it cannot read back', async () => {
    await expectRefusals(
      h,
      { method: 'GET', url: '/api/certificates/cert_1/service-records' },
      h.keyWith(['service_records.write']),
    );
  });

  it('maps the service’s resource_not_found (a stranger) to 404', async () => {
    await expectMapped(h, ['serviceRecords', 'listServiceRecords'], new HallmarkError('resource_not_found'), {
      method: 'GET',
      url: '/api/certificates/cert_1/service-records',
      headers: h.keyWith(['transactions.read']),
    });
  });
});

/** The owner's decision routes give the same guarantees (the catalogue wants a literal describe each). */
function decisionRoute(verb: 'accept' | 'refuse') {
  const url = `/api/certificates/cert_1/service-records/svcrec_1/${verb}`;
  const status = verb === 'accept' ? 'accepted' : 'refused';
  it(`answers the ${status} record and the certificate as anyone reads it, for a user session`, async () => {
    h.answer('serviceRecords', 'decideServiceRecord', async () => ({
      record: { ...RECORD, status, decided_at: '2026-03-05T00:00:00.000Z' },
      certificate: certificate({ service_history: verb === 'accept' ? [ENTRY] : [] }),
    }));
    const res = await h.app.inject({ method: 'POST', url, headers: h.session });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      record: { id: 'svcrec_1', status },
      certificate: { id: 'cert_1', serviceHistory: verb === 'accept' ? [{ id: 'svcrec_1' }] : [] },
    });
    expect(h.callsTo('serviceRecords', 'decideServiceRecord')[0]).toMatchObject({
      certificate_id: 'cert_1',
      record_id: 'svcrec_1',
      decision: verb,
      principal: { actor_type: 'user' },
    });
  });

  it('is 401 without a credential and refuses any API key (a repairer’s or the brand’s admin key): only a session decides', async () => {
    await expectRefusals(h, { method: 'POST', url });
    for (const scopes of [['service_records.write'], ['admin.*']]) {
      const res = await h.app.inject({ method: 'POST', url, headers: h.keyWith(scopes) });
      expect(res.statusCode).toBe(401);
      expect(errorCode(res.json())).toBe('invalid_token');
    }
    expect(h.calls).toEqual([]);
  });

  it('maps a second decision (validation_failed) to 422 in the unversioned envelope', async () => {
    await expectMapped(
      h,
      ['serviceRecords', 'decideServiceRecord'],
      new HallmarkError('validation_failed', { param: 'record_id', message: 'already decided' }),
      { method: 'POST', url, headers: h.session },
    );
  });
}

describe('POST /api/certificates/:id/service-records/:record_id/accept', () => decisionRoute('accept'));
describe('POST /api/certificates/:id/service-records/:record_id/refuse', () => decisionRoute('refuse'));

describe('a repairer key reaches nothing but appending', () => {
  it('is 403 on other certificate routes (stolen report, warranty, service-record list) before any call', async () => {
    const repairer = h.keyWith(['service_records.write']);
    for (const req of [
      {
        method: 'POST' as const,
        url: '/api/certificates/cert_1/stolen',
        payload: { kind: 'stolen', reason: 'x' },
      },
      { method: 'GET' as const, url: '/api/certificates/cert_1/stolen' },
      { method: 'GET' as const, url: '/api/certificates/cert_1/service-records' },
    ]) {
      const res = await h.app.inject({ ...req, headers: repairer });
      expect(res.statusCode).toBe(403);
      expect(errorCode(res.json())).toBe('insufficient_permissions');
    }
    expect(h.calls).toEqual([]);
  });
});

describe('the public read carries the accepted service history', () => {
  it('GET /api/certificate/public/:id shows serviceHistory with /media attachment URLs and no adder id', async () => {
    h.answer('certificates', 'getPublicCertificate', async () => certificate({ service_history: [ENTRY] }));
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/public/cert_1' });
    expect(res.json().serviceHistory).toEqual([
      {
        id: 'svcrec_1',
        kind: 'repair',
        label: null,
        performedAt: ENTRY.performed_at,
        performer: 'Atelier Roux',
        description: 'Mainspring replaced',
        attachments: [
          {
            kind: 'photo',
            url: `/media/${SHA}`,
            sha256: SHA,
            contentType: 'image/png',
            width: 64,
            height: 48,
            caption: 'Dial',
          },
        ],
        acceptedAt: ENTRY.accepted_at,
      },
    ]);
    expect(res.body).not.toContain('apikey_1');
  });
});

describe('the public cache hears the service-record events', () => {
  it('certificate.service_record_added/accepted/refused fall under the invalidation filter and name their certificate', () => {
    const filter = new RegExp(`^${CERTIFICATE_EVENTS.replace(/\./g, '\\.').replace('>', '.+')}$`);
    for (const type of [
      'certificate.service_record_added',
      'certificate.service_record_accepted',
      'certificate.service_record_refused',
    ]) {
      expect(subjectFor('certificates', type)).toMatch(filter);
      const event = { type, data: { object: { id: 'cert_1', tokenId: 7 } } } as unknown as EventEnvelope;
      expect(certificateOf(event)).toEqual({ id: 'cert_1', tokenId: 7 });
    }
  });
});
