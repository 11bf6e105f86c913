// routes/tags/: the NFC tag registry under a certificate (authenticated, enterprise scopes)
// and the tap page a tag opens (public HTML, never cached), whose text names each outcome.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificate } from './fixtures.js';
import { routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const tag = (over: object = {}) => ({
  id: 'tag_4Q2m9XbT7cLp0aZ1yN8kVw3e',
  certificate_id: 'cert_1',
  uid: '04A1B2C3D4E5F6',
  status: 'active',
  tap_count: 0,
  created_at: '2026-11-20T09:00:00.000Z',
  livemode: true,
  ...over,
});

const PEM = '-----BEGIN PUBLIC KEY-----\nMIIB…\n-----END PUBLIC KEY-----\n';
const TAP_URL =
  '/t/tagkey_4Q2m9XbT7cLp0aZ1yN8kVw3e?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086';

describe('POST /api/v1/certificates/:certificate_id/tags', () => {
  routeCase(() => h, 'tags', {
    req: {
      method: 'POST',
      url: '/api/v1/certificates/cert_1/tags',
      payload: { uid: '04:A1:B2:C3:D4:E5:F6', programming_public_key: PEM },
    },
    scope: 'transactions.update',
    wrongScope: 'transactions.read',
    call: 'registerTag',
    answer: () => ({
      tag: tag(),
      url_template: 'https://hallmark.test/t/tagkey_1?picc_data={PICC}&cmac={MAC}',
      key_id: 'tagkey_1',
      encrypted_keys: 'AAAA',
    }),
    status: 201,
    shape: {
      tag: {
        id: 'tag_4Q2m9XbT7cLp0aZ1yN8kVw3e',
        uid: '04A1B2C3D4E5F6',
        status: 'active',
        last_counter: null,
      },
      url_template: 'https://hallmark.test/t/tagkey_1?picc_data={PICC}&cmac={MAC}',
      encrypted_keys: 'AAAA',
      keys_encryption: 'RSA-OAEP-256',
    },
    sent: { certificate_id: 'cert_1', uid: '04:A1:B2:C3:D4:E5:F6', programming_public_key: PEM },
    bad: { payload: { uid: '04A1B2C3D4E5F6' }, param: 'programming_public_key' },
    error: new HallmarkError('resource_already_exists', { param: 'uid', message: 'Already registered.' }),
  });
});

describe('GET /api/v1/certificates/:certificate_id/tags', () => {
  routeCase(() => h, 'tags', {
    req: { method: 'GET', url: '/api/v1/certificates/cert_1/tags' },
    scope: 'transactions.read',
    wrongScope: 'reports.read',
    call: 'listTags',
    answer: () => ({ tags: [tag({ tap_count: 2, last_counter: 7 })] }),
    status: 200,
    shape: { tags: [{ tap_count: 2, last_counter: 7 }] },
    sent: { certificate_id: 'cert_1' },
    error: new HallmarkError('resource_not_found', { message: 'No such certificate.' }),
  });
});

describe('DELETE /api/v1/certificates/:certificate_id/tags/:tag_id', () => {
  routeCase(() => h, 'tags', {
    req: { method: 'DELETE', url: '/api/v1/certificates/cert_1/tags/tag_4Q2m9XbT7cLp0aZ1yN8kVw3e' },
    scope: 'transactions.delete',
    wrongScope: 'transactions.update',
    call: 'revokeTag',
    answer: () => tag({ status: 'revoked', revoked_at: '2026-11-29T10:00:00.000Z' }),
    status: 200,
    shape: { status: 'revoked', revoked_at: '2026-11-29T10:00:00.000Z' },
    sent: { certificate_id: 'cert_1', tag_id: 'tag_4Q2m9XbT7cLp0aZ1yN8kVw3e' },
    error: new HallmarkError('resource_not_found', { message: 'No such tag.' }),
  });
});

describe('GET /t/:key_id', () => {
  const expectPage = (res: { headers: Record<string, unknown> }) => {
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  };

  it('a genuine tap shows "Genuine tag, tap N" above the certificate’s verification, without a credential', async () => {
    h.answer('tags', 'tap', async () => ({
      outcome: 'genuine',
      tag_id: 'tag_1',
      certificate_id: 'cert_1',
      counter: 61,
      last_counter: 60,
      tap_number: 3,
      verification: {
        certificate: certificate(),
        checks: [{ name: 'record_found', passed: true, detail: '' }],
        verified: true,
        burned: false,
        verified_at: '2026-11-29T10:00:00.000Z',
      },
    }));
    const res = await h.app.inject({ method: 'GET', url: TAP_URL });
    expect(res.statusCode).toBe(200);
    expectPage(res);
    expect(res.body).toContain('Genuine tag, tap 3');
    expect(res.body).toContain('Lamp');
    expect(h.callsTo('tags', 'tap')[0]).toMatchObject({
      key_id: 'tagkey_4Q2m9XbT7cLp0aZ1yN8kVw3e',
      picc_data: 'EF963FF7828658A599F3041510671E88',
      cmac: '94EED9EE65337086',
    });
    expect(h.calls).toHaveLength(1);
  });

  it.each([
    ['replayed', 409, 'This tag message was already used — it may be a copy'],
    ['bad_signature', 400, 'The tag’s signature is wrong'],
    ['revoked', 410, 'This tag was revoked'],
    ['unknown_tag', 404, 'Unknown tag'],
    ['malformed', 400, 'This link is not a complete tag message'],
  ])('a %s tap answers %i with a page saying so plainly', async (outcome, status, text) => {
    h.answer('tags', 'tap', async () => ({ outcome, counter: 5, last_counter: 9 }));
    const res = await h.app.inject({ method: 'GET', url: TAP_URL });
    expect(res.statusCode).toBe(status);
    expectPage(res);
    expect(res.body).toContain(text);
    expect(res.body).not.toContain('data-tap="genuine"');
    if (outcome === 'replayed') expect(res.body).toMatch(/Tap counter in this message: <strong>5<\/strong>/);
  });

  it('an outage is a 503 page asking to tap again, never a 5xx JSON body', async () => {
    h.answer('tags', 'tap', async () => {
      throw new HallmarkError('service_unavailable', { message: 'down' });
    });
    const res = await h.app.inject({ method: 'GET', url: TAP_URL });
    expect(res.statusCode).toBe(503);
    expectPage(res);
    expect(res.body).toContain('The tag cannot be checked right now');
  });
});
