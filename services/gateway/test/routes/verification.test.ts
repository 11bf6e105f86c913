// routes/verify/verification.ts: the open verification API. One VerifyCertificate call answers
// the checks as JSON (the public read's field names, the chain record, links), from the public
// cache like the page, recording document.verified as the page does; unknown is 404, malformed
// 400, both in the unversioned error envelope. Its own file: its own rate-limit counters.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { certificate } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());
beforeEach(() => h.reset());

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ROOT = `0x${'cd'.repeat(32)}`;
const HOLDER = '0x' + '11'.repeat(20);

const CHECKS = ['record_found', 'on_chain', 'holder', 'metadata', 'not_burned'];

const verification = (over: object = {}) => ({
  certificate: certificate({
    issuer: {
      display_name: 'Maison Test',
      website: 'https://brand.example/',
      domain_verified: true,
      logo_width: 0,
      logo_height: 0,
      indexable: false,
    },
  }),
  checks: CHECKS.map((name) => ({ name, passed: true, detail: `${name} ok` })),
  verified: true,
  burned: false,
  verified_at: '2025-01-02T00:00:00.000Z',
  chain_owner: HOLDER,
  merkle_root: ROOT,
  contract_address: CONTRACT,
  chain_id: '31337',
  ...over,
});

const get = (id: string, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'GET', url: `/api/certificate/verify/${id}`, headers });

describe('GET /api/certificate/verify/:id', () => {
  it('answers a verified certificate as JSON: every check, the chain record, the issuer line and absolute links, without a credential (one call)', async () => {
    h.answer('verification', 'verifyCertificate', async () => verification());
    const res = await get('cert_1');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({
      id: 'cert_1',
      name: 'Lamp',
      verified: true,
      burned: false,
      status: 'minted',
      stolen: null,
      serviceHistory: [],
      verifiedAt: '2025-01-02T00:00:00.000Z',
      checks: CHECKS.map((name) => ({ name, passed: true, detail: `${name} ok` })),
      issuer: {
        name: 'Maison Test',
        website: 'https://brand.example/',
        domain: 'brand.example',
        domainVerified: true,
      },
      imageUrl: 'https://img.test/l.png',
      image: null,
      metadata: { sku: 'L1' },
      provenance: [
        {
          kind: 'minted',
          actor: null,
          from: null,
          to: null,
          transactionHash: null,
          blockNumber: null,
          at: '2025-01-01T00:00:00.000Z',
        },
      ],
      chain: {
        chainId: '31337',
        contract: CONTRACT,
        tokenId: 7,
        transactionHash: '0xabc',
        blockNumber: 9,
        batchId: 'batch_1',
        merkleRoot: ROOT,
        metadataHash: '0x00',
        holder: HOLDER,
        owner: HOLDER,
      },
      links: {
        verifyPage: 'https://hallmark.test/verify/cert_1',
        qrCode: 'https://hallmark.test/verify/cert_1/qr.svg',
        proofBundle: 'https://hallmark.test/api/certificate/cert_1/proof',
        credential: 'https://hallmark.test/api/certificate/cert_1/credential',
        metadata: 'https://hallmark.test/api/certificate/metadata/7',
      },
    });
    expect(h.calls).toHaveLength(1);
    expect(h.callsTo('verification', 'verifyCertificate')).toEqual([
      { certificate_id: 'cert_1', record_event: true },
    ]);
  });

  it('answers a failed check as a 200 with verified false and the check’s reason', async () => {
    h.answer('verification', 'verifyCertificate', async () =>
      verification({
        verified: false,
        checks: [
          { name: 'record_found', passed: true, detail: 'Hallmark has a record.' },
          {
            name: 'metadata',
            passed: false,
            detail:
              'The metadata was changed after minting: it no longer matches the Merkle root recorded on chain.',
          },
        ],
      }),
    );
    const res = await get('cert_2');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: 'cert_1',
      verified: false,
      burned: false,
      checks: [
        { name: 'record_found', passed: true },
        { name: 'metadata', passed: false, detail: expect.stringContaining('changed after minting') },
      ],
    });
  });

  it('says a burned certificate is burned (status burned, verified false)', async () => {
    h.answer('verification', 'verifyCertificate', async () =>
      verification({
        certificate: certificate({ status: 'burned' }),
        verified: false,
        burned: true,
        chain_owner: undefined,
        checks: [{ name: 'not_burned', passed: false, detail: 'The token was burned.' }],
      }),
    );
    const res = await get('cert_3');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      verified: false,
      burned: true,
      status: 'burned',
      chain: { owner: null, tokenId: 7 },
      checks: [{ name: 'not_burned', passed: false, detail: 'The token was burned.' }],
    });
  });

  it('gives no proof, credential or metadata link before the certificate is minted', async () => {
    h.answer('verification', 'verifyCertificate', async () =>
      verification({
        certificate: certificate({
          status: 'pending',
          token_id: undefined,
          transaction_hash: undefined,
          block_number: undefined,
        }),
        verified: false,
        merkle_root: undefined,
      }),
    );
    const res = await get('cert_4');
    expect(res.json()).toMatchObject({
      chain: { tokenId: null, transactionHash: null, blockNumber: null, merkleRoot: null },
      links: { proofBundle: null, credential: null, metadata: null },
    });
  });

  it('is 404 resource_not_found for an unknown certificate, and 400 parameter_invalid for a malformed id (no call)', async () => {
    h.answer('verification', 'verifyCertificate', async () => {
      throw new HallmarkError('resource_not_found', { message: 'No such certificate.' });
    });
    const unknown = await get('cert_unknown');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, code: 'resource_not_found' });
    h.reset();
    for (const id of ['not-an-id', 'cert_', 'cert_a-b', `cert_${'a'.repeat(60)}`]) {
      const bad = await get(id);
      expect({ id, status: bad.statusCode, code: bad.json().code }).toEqual({
        id,
        status: 400,
        code: 'parameter_invalid',
      });
    }
    expect(h.calls).toEqual([]);
  });

  it('answers repeated views from the public cache (one event per viewer), with an ETag and 304, until the certificate changes', async () => {
    h.answer('verification', 'verifyCertificate', async () => verification());
    const first = await get('cert_5');
    const second = await get('cert_5');
    expect(second.body).toBe(first.body);
    expect(second.headers['x-cache']).toBe('hit');
    expect(first.headers['cache-control']).toBe('public, max-age=5, stale-while-revalidate=30');
    const notModified = await get('cert_5', { 'if-none-match': first.headers.etag as string });
    expect(notModified.statusCode).toBe(304);
    expect(h.callsTo('verification', 'verifyCertificate')).toEqual([
      { certificate_id: 'cert_5', record_event: true },
    ]);
    h.app.publicCache.invalidate('cert_5');
    await get('cert_5');
    expect(h.callsTo('verification', 'verifyCertificate')).toEqual([
      { certificate_id: 'cert_5', record_event: true },
      { certificate_id: 'cert_5', record_event: false },
    ]);
  });

  it('says what the verification page says: the same checks, from the same presented verification', async () => {
    h.answer('verification', 'verifyCertificate', async () =>
      verification({
        verified: false,
        checks: [
          { name: 'record_found', passed: true, detail: 'found' },
          { name: 'holder', passed: false, detail: 'owner is someone else' },
        ],
      }),
    );
    const json = (await get('cert_6')).json();
    const page = (await h.app.inject({ method: 'GET', url: '/verify/cert_6' })).body;
    const onPage = [...page.matchAll(/data-check="([^"]+)"\s+data-passed="(true|false)"/g)].map((m) => ({
      name: m[1],
      passed: m[2] === 'true',
    }));
    expect(onPage).toEqual(
      json.checks.map((c: { name: string; passed: boolean }) => ({ name: c.name, passed: c.passed })),
    );
    expect(page).toContain('data-result="failed"');
    // A minted certificate's page offers its proof bundle.
    expect(page).toMatch(/<a id="download-proof" href="\/api\/certificate\/cert_1\/proof" download/);
  });
});
