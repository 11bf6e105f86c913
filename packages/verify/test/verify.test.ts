// verifyBundle against a real chain (anvil, the real HallmarkCertificates contract, a minted
// batch) and a real issuer key, with no Hallmark process: each check proves what it claims, and
// a bundle that lies about anything (metadata, chain, image, token) is caught.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import {
  createDocumentLoader,
  fixedDidResolver,
  verifyBundle,
  type CheckName,
  type ProofBundle,
  type VerificationReport,
} from '../src/index.js';
import { buildFixture, IMAGE, type Fixture } from './fixture.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await buildFixture();
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

const verify = (bundle: unknown, extra: { image?: Uint8Array } = {}) =>
  verifyBundle(bundle, { rpcUrl: fx.anvil.rpcUrl, timeoutMs: 3000, ...extra });

const result = (report: VerificationReport, name: CheckName) => report.checks.find((c) => c.name === name);
const results = (report: VerificationReport) =>
  Object.fromEntries(report.checks.map((c) => [c.name, c.result]));

describe('verifyBundle', () => {
  it('a genuine bundle verifies: every check passes, the issuer is resolved live and the holder is named', async () => {
    const report = await verify(fx.bundle(0), { image: IMAGE });
    expect(results(report)).toEqual({
      bundle_format: 'passed',
      issuer_did: 'passed',
      credential_signature: 'passed',
      credential_matches_bundle: 'passed',
      metadata_hash: 'passed',
      chain_id: 'passed',
      mint_transaction: 'passed',
      merkle_proof: 'passed',
      token: 'passed',
      status_list: 'passed',
      image: 'passed',
    });
    expect(report).toMatchObject({ verified: true, status: 'valid', notes: [] });
    expect(report.certificate).toMatchObject({
      id: 'cert_fixture0',
      name: 'Gold Watch',
      issuer: fx.host.did,
    });
    expect(report.certificate?.owner).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(report.checks.map((c) => c.name)).toEqual(Object.keys(results(report)));
  });

  it('the credential verifies with @digitalbazaar/vc alone (an independent implementation)', async () => {
    const { credential } = fx.bundle(1);
    const r = await vc.verifyCredential({
      credential,
      suite: new DataIntegrityProof({ cryptosuite: ecdsaRdfc2019 }),
      documentLoader: createDocumentLoader({ resolveDid: fixedDidResolver(fx.host.didDocument) }),
      checkStatus: async () => ({ verified: true }),
    });
    expect(r.error?.message).toBeUndefined();
    expect(r.verified).toBe(true);
  });

  it('a tampered metadata field fails both the signature and the Merkle proof', async () => {
    const bundle = fx.bundle(1);
    // The forger changes the field everywhere it appears, and re-hashes to match.
    bundle.metadata.metadata.artist = 'Not Ada';
    bundle.credential.credentialSubject.metadata = { ...bundle.metadata.metadata };
    const report = await verify(bundle);
    expect(report).toMatchObject({ verified: false, status: 'invalid' });
    expect(result(report, 'credential_signature')?.result).toBe('failed');
    expect(result(report, 'merkle_proof')?.result).toBe('failed');
    expect(result(report, 'metadata_hash')?.result).toBe('failed');
  });

  it('metadata changed only in the bundle (not the credential) fails the hash and the Merkle proof', async () => {
    const bundle: ProofBundle = fx.bundle(1);
    bundle.metadata.metadata.artist = 'Not Ada';
    const report = await verify(bundle);
    expect(report.status).toBe('invalid');
    expect(result(report, 'credential_signature')?.result).toBe('passed');
    expect(result(report, 'credential_matches_bundle')?.result).toBe('failed');
    expect(result(report, 'metadata_hash')?.result).toBe('failed');
    expect(result(report, 'merkle_proof')?.result).toBe('failed');
  });

  it('the issuer domain unreachable: the signature is checked with the bundle snapshot, with the note', async () => {
    fx.host.down.add('/issuers/ent_fixture/did.json');
    try {
      const report = await verify(fx.bundle(1));
      expect(report).toMatchObject({ verified: true, status: 'valid' });
      expect(result(report, 'issuer_did')).toMatchObject({ result: 'unknown' });
      expect(result(report, 'issuer_did')?.detail).toContain('Issuer domain unreachable');
      expect(result(report, 'credential_signature')?.result).toBe('passed');
      expect(report.notes.join('\n')).toMatch(/^Issuer domain unreachable/);
    } finally {
      fx.host.down.clear();
    }
  });

  it('a snapshot of another DID is refused when the issuer domain is unreachable', async () => {
    fx.host.down.add('/issuers/ent_fixture/did.json');
    try {
      const bundle = fx.bundle(1);
      bundle.issuer.didDocument = { ...bundle.issuer.didDocument, id: 'did:web:forger.example' };
      const report = await verify(bundle);
      expect(report.status).toBe('invalid');
      expect(result(report, 'issuer_did')?.result).toBe('failed');
      expect(result(report, 'credential_signature')?.result).toBe('failed');
    } finally {
      fx.host.down.clear();
    }
  });

  it('the status list unreachable: status unknown, still verified on the chain', async () => {
    fx.host.down.add('/api/status-lists/sl_fixture');
    try {
      const report = await verify(fx.bundle(1));
      expect(report).toMatchObject({ verified: true, status: 'valid' });
      expect(result(report, 'status_list')?.result).toBe('unknown');
      expect(report.notes.join('\n')).toMatch(/^Status unknown/);
    } finally {
      fx.host.down.clear();
    }
  });

  it('every Hallmark server down (DID and status list): verified from the chain alone, with both notes', async () => {
    fx.host.down.add('/issuers/ent_fixture/did.json').add('/api/status-lists/sl_fixture');
    try {
      const report = await verify(fx.bundle(0));
      expect(report).toMatchObject({ verified: true, status: 'valid' });
      expect(report.notes).toHaveLength(2);
    } finally {
      fx.host.down.clear();
    }
  });

  it('a status list that does not verify (changed after signing) fails the status check', async () => {
    const list = (await (await fetch(fx.host.statusListUrl)).json()) as Record<string, unknown>;
    fx.host.overrides.set('/api/status-lists/sl_fixture', { ...list, validFrom: '2020-01-01T00:00:00Z' });
    try {
      const report = await verify(fx.bundle(1));
      expect(report.verified).toBe(false);
      expect(result(report, 'status_list')).toMatchObject({ result: 'failed' });
      expect(result(report, 'status_list')?.detail).toContain('does not verify');
    } finally {
      fx.host.overrides.clear();
    }
  });

  it('the live DID document wins over the snapshot: a key the issuer removed no longer verifies', async () => {
    const { verificationMethod: _removed, assertionMethod: _too, ...rest } = fx.host.didDocument;
    fx.host.overrides.set('/issuers/ent_fixture/did.json', {
      ...rest,
      verificationMethod: [],
      assertionMethod: [],
    });
    try {
      const report = await verify(fx.bundle(1));
      expect(result(report, 'issuer_did')?.result).toBe('passed');
      expect(result(report, 'credential_signature')?.result).toBe('failed');
      expect(report.status).toBe('invalid');
    } finally {
      fx.host.overrides.clear();
    }
  });

  it('a wrong chain fails: the bundle says chain 1, the RPC serves anvil', async () => {
    const bundle = fx.bundle(2);
    bundle.chain.chainId = '1';
    bundle.credential = (await fx.sign({
      ...stripProof(bundle.credential),
      credentialSubject: { ...bundle.credential.credentialSubject, chainId: '1' },
    })) as never;
    const report = await verify(bundle);
    expect(report.status).toBe('invalid');
    expect(result(report, 'credential_signature')?.result).toBe('passed');
    expect(result(report, 'chain_id')).toMatchObject({ result: 'failed' });
    expect(result(report, 'chain_id')?.detail).toContain('chain 1');
  });

  it("a credential for another token fails even when the bundle's chain data is genuine", async () => {
    const bundle = fx.bundle(1);
    bundle.chain.tokenId = fx.bundle(2).chain.tokenId;
    const report = await verify(bundle);
    expect(report.status).toBe('invalid');
    expect(result(report, 'credential_matches_bundle')?.result).toBe('failed');
    expect(result(report, 'mint_transaction')?.result).toBe('failed');
  });

  it('an image that is not the certified one fails', async () => {
    const report = await verify(fx.bundle(0), { image: new TextEncoder().encode('another picture') });
    expect(report.status).toBe('invalid');
    expect(result(report, 'image')).toMatchObject({ result: 'failed' });
    expect((await verify(fx.bundle(0))).checks.find((c) => c.name === 'image')?.result).toBe('skipped');
  });

  it('a mint transaction that is not in the recorded block fails', async () => {
    const bundle = fx.bundle(0);
    bundle.mint.blockNumber += 1;
    const report = await verify(bundle);
    expect(report.status).toBe('invalid');
    expect(result(report, 'mint_transaction')?.detail).toContain(`not ${bundle.mint.blockNumber}`);
  });

  it('an RPC that does not answer: the chain checks are unknown and the certificate is not verified', async () => {
    const report = await verifyBundle(fx.bundle(0), { rpcUrl: 'http://127.0.0.1:9', timeoutMs: 3000 });
    expect(report).toMatchObject({ verified: false, status: 'unknown' });
    expect(result(report, 'token')?.result).toBe('unknown');
  });

  it('a file that is not a proof bundle gets a clear error, not a crash', async () => {
    expect(await verify('{"format": "something else"}')).toMatchObject({
      verified: false,
      status: 'invalid',
      certificate: null,
      checks: [{ name: 'bundle_format', result: 'failed', detail: expect.stringContaining('"format"') }],
    });
    const broken = fx.bundle(0) as unknown as Record<string, unknown>;
    delete broken.merkle;
    expect(result(await verify(broken), 'bundle_format')?.detail).toContain('"merkle" must be an object');
    expect(result(await verify('not json'), 'bundle_format')?.detail).toContain('not JSON');
  });

  // Last: burning is for good.
  it('a burned token and a revoked status entry report revoked; the Merkle proof still holds via the mint', async () => {
    await fx.burn(2);
    await fx.host.revoke(2);
    const report = await verify(fx.bundle(2));
    expect(report).toMatchObject({ verified: false, status: 'revoked' });
    expect(result(report, 'token')?.detail).toContain('burned');
    expect(result(report, 'status_list')).toMatchObject({ result: 'failed' });
    expect(result(report, 'status_list')?.detail).toContain('Revoked');
    expect(result(report, 'merkle_proof')?.result).toBe('passed');
    expect(result(report, 'credential_signature')?.result).toBe('passed');
    // The others in the list are untouched.
    expect((await verify(fx.bundle(1))).status).toBe('valid');
  });
});

function stripProof(credential: Record<string, unknown>): Record<string, unknown> {
  const { proof: _proof, ...rest } = credential;
  return rest;
}
