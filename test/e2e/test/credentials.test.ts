// Verifiable credentials through the real processes: a certificate minted on chain gets its
// credential promptly (the mint worker wakes the credentials worker), the gateway serves it,
// the hosted did:web document and the status list over HTTP, and @digitalbazaar/vc verifies
// the credential against exactly what was served; the proof bundle downloads as a file and its
// Merkle proof holds against the batch root; an owner sees the issuer identity and rotates the
// key, after which the old credential still verifies against the served document.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { verifyBatchProof } from '../../../services/certificates/src/chain/batch-tree.js';
import { verifyIndependently } from '../../../services/certificates/test/credentials-verify.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true, env: { HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200' } });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${stack.gatewayUrl}${url}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
};

describe('a minted certificate as a verifiable credential', () => {
  it('is issued promptly, served with its DID document and status list, and verified by @digitalbazaar/vc', async () => {
    const ent = newId('enterprise');
    const principal = {
      enterprise_id: ent,
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    let id: string;
    try {
      const batch = await certificates.api.mintBatch({
        principal,
        idempotency_key: 'vc-1',
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: [{ name: 'Chronograph No. 9', metadata_json: JSON.stringify({ serialNumber: 'SN-0009' }) }],
      });
      id = batch.certificates[0]!.id;
      const early = await get(`/api/certificate/${id}/credential`);
      expect(early.status).toBe(404);
      expect(early.body.success).toBe(false);
      const minted = await certificates.api.getMintBatch(
        { principal, batch_id: batch.batch_id, wait_ms: 30_000, status_only: true },
        { deadlineMs: 40_000 },
      );
      expect(minted.status).toBe('minted');
    } finally {
      certificates.close();
    }

    const credential = await eventually(
      async () => {
        const r = await get(`/api/certificate/${id}/credential`);
        expect(r.status).toBe(200);
        return r.body;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const didUrl = `/issuers/${ent}/did.json`;
    const host = new URL(stack.gatewayUrl).host.replace(':', '%3A');
    expect(credential.issuer).toBe(`did:web:${host}:issuers:${ent}`);
    const did = await get(didUrl);
    expect(did.status).toBe(200);
    const listUrl = credential.credentialStatus.statusListCredential as string;
    const list = await get(new URL(listUrl).pathname);
    expect(list.status).toBe(200);
    const lists = new Map([[listUrl, list.body]]);
    expect(await verifyIndependently(credential, [did.body as never], lists)).toEqual({
      verified: true,
      revoked: false,
    });

    const bundle = await get(`/api/certificate/${id}/proof`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-disposition')).toBe(
      `attachment; filename="hallmark-proof-${id}.json"`,
    );
    expect(bundle.body).toMatchObject({
      format: 'hallmark-proof-bundle/1',
      credential,
      issuer: { didDocument: did.body },
    });
    const { merkle, metadata } = bundle.body;
    expect(verifyBatchProof(merkle.root, merkle.index, metadata.hash, merkle.proof)).toBe(true);

    // The owner's view, then a rotation: the old credential still verifies.
    const owner = await stack.token({ ent });
    const identity = await get('/api/v1/issuer', { authorization: `Bearer ${owner}` });
    expect(identity.status).toBe(200);
    expect(identity.body).toMatchObject({
      hostedDid: credential.issuer,
      issuingDid: credential.issuer,
      domain: null,
    });
    const rotated = await fetch(`${stack.gatewayUrl}/api/v1/issuer/keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(rotated.status).toBe(200);
    const after = await get(didUrl);
    expect(after.body.assertionMethod).toEqual([`${credential.issuer}#key-2`, `${credential.issuer}#key-1`]);
    const relisted = await get(new URL(listUrl).pathname);
    expect(
      await verifyIndependently(credential, [after.body as never], new Map([[listUrl, relisted.body]])),
    ).toEqual({ verified: true, revoked: false });
  }, 120_000);
});
