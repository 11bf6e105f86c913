// routes/credentials/: the public credential documents (a certificate's credential and proof
// bundle, the hosted issuer DID documents, the status lists) are answered without a credential,
// exactly as the service built them (never re-serialised: a signed document stays as signed),
// with the download's file name; a credential not issued yet is the spec's 404; the issuer
// identity and key rotation need admin.*.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { ENT, errorCode, routeCase, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

// Key order and spacing a serialiser would change: the bytes must arrive as the service sent them.
const SIGNED =
  '{"@context":["https://www.w3.org/ns/credentials/v2"],"proof":{"proofValue":"z1"},"id":"urn:uuid:1","extra":{"b":1,"a":2}}';

/** The route answers the service's JSON byte for byte, without a credential, passing `sent` on. */
function passesThrough(
  url: string,
  call: 'getCredential' | 'getProofBundle' | 'getHostedDidDocument' | 'getStatusList',
  sent: object,
) {
  it("answers the service's JSON byte for byte without a credential", async () => {
    h.answer('credentials', call, async () => ({ json: SIGNED }));
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(SIGNED);
    expect(h.callsTo('credentials', call)).toEqual([expect.objectContaining(sent)]);
  });
}

/** A credential not issued yet is the spec's 404, with the service's reason. */
function notIssuedYet(url: string, call: 'getCredential' | 'getProofBundle') {
  it("answers a credential not issued yet as the spec's 404 resource_not_found, with the service's reason", async () => {
    const message = "Certificate 'cert_1' has no credential yet: it is being issued. Retry in a few seconds.";
    h.answer('credentials', call, async () => {
      throw new HallmarkError('resource_not_found', { message });
    });
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    expect(errorCode(res.json())).toBe('resource_not_found');
    expect(JSON.stringify(res.json())).toContain('it is being issued');
    expect(res.headers['content-disposition']).toBeUndefined();
  });
}

describe('GET /api/certificate/:id/credential', () => {
  passesThrough('/api/certificate/cert_1/credential', 'getCredential', { certificate_id: 'cert_1' });
  notIssuedYet('/api/certificate/cert_1/credential', 'getCredential');
});

describe('GET /api/certificate/:id/proof', () => {
  passesThrough('/api/certificate/cert_1/proof', 'getProofBundle', { certificate_id: 'cert_1' });
  notIssuedYet('/api/certificate/cert_1/proof', 'getProofBundle');

  it('answers the proof bundle as a download named after the certificate, never cached', async () => {
    h.answer('credentials', 'getProofBundle', async () => ({ json: '{"format":"hallmark-proof-bundle/1"}' }));
    const res = await h.app.inject({ method: 'GET', url: '/api/certificate/cert_1/proof' });
    expect(res.headers['content-disposition']).toBe('attachment; filename="hallmark-proof-cert_1.json"');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /issuers/:enterprise_id/did.json', () => {
  passesThrough(`/issuers/${ENT}/did.json`, 'getHostedDidDocument', { enterprise_id: ENT, livemode: true });

  it('answers an enterprise without an issuer key 404 in the error envelope', async () => {
    h.answer('credentials', 'getHostedDidDocument', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const did = await h.app.inject({ method: 'GET', url: '/issuers/ent_nobody/did.json' });
    expect(did.statusCode).toBe(404);
    expect(errorCode(did.json())).toBe('resource_not_found');
  });
});

describe('GET /issuers/:enterprise_id/test/did.json', () => {
  passesThrough(`/issuers/${ENT}/test/did.json`, 'getHostedDidDocument', {
    enterprise_id: ENT,
    livemode: false,
  });
});

describe('GET /api/status-lists/:list_id', () => {
  passesThrough('/api/status-lists/sl_1', 'getStatusList', { list_id: 'sl_1' });

  it('lets caches keep a status list only briefly, so a revocation shows promptly', async () => {
    h.answer('credentials', 'getStatusList', async () => ({ json: '{}' }));
    const res = await h.app.inject({ method: 'GET', url: '/api/status-lists/sl_1' });
    expect(res.headers['cache-control']).toBe('public, max-age=30');
  });

  it('answers an unknown list 404', async () => {
    h.answer('credentials', 'getStatusList', async () => {
      throw new HallmarkError('resource_not_found');
    });
    const list = await h.app.inject({ method: 'GET', url: '/api/status-lists/sl_nope' });
    expect(list.statusCode).toBe(404);
    expect(errorCode(list.json())).toBe('resource_not_found');
  });
});

const DOC = (did: string) =>
  JSON.stringify({ '@context': [], id: did, verificationMethod: [], assertionMethod: [] });
const identity = () => ({
  hosted_did: `did:web:hallmark.test:issuers:${ENT}`,
  hosted_did_url: `https://hallmark.test/issuers/${ENT}/did.json`,
  hosted_document_json: DOC(`did:web:hallmark.test:issuers:${ENT}`),
  domain_did: 'did:web:brand.example',
  domain_did_url: 'https://brand.example/.well-known/did.json',
  domain_document_json: DOC('did:web:brand.example'),
  domain_verified: true,
  issuing_did: 'did:web:brand.example',
  keys: [{ key_id: 'key-1', public_key_multibase: 'zDn', current: true }],
});
const shape = {
  hostedDid: `did:web:hallmark.test:issuers:${ENT}`,
  domain: {
    did: 'did:web:brand.example',
    url: 'https://brand.example/.well-known/did.json',
    verified: true,
    document: { id: 'did:web:brand.example' },
  },
  issuingDid: 'did:web:brand.example',
  keys: [{ keyId: 'key-1', publicKeyMultibase: 'zDn', current: true }],
};
const ADMIN = { scope: 'admin.*', wrongScope: 'transactions.read' };

describe('GET /api/v1/issuer', () => {
  routeCase(() => h, 'credentials', {
    ...ADMIN,
    req: { method: 'GET', url: '/api/v1/issuer' },
    call: 'getIssuerIdentity',
    answer: () => identity(),
    status: 200,
    shape,
    sent: { principal: { enterprise_id: ENT } },
    error: new HallmarkError('service_unavailable'),
  });
});

describe('POST /api/v1/issuer/keys/rotate', () => {
  routeCase(() => h, 'credentials', {
    ...ADMIN,
    req: { method: 'POST', url: '/api/v1/issuer/keys/rotate' },
    call: 'rotateIssuerKey',
    answer: () => identity(),
    status: 200,
    shape,
    sent: { principal: { enterprise_id: ENT } },
    error: new HallmarkError('service_unavailable'),
  });
});
