// A certificate outlives Hallmark (issue #32's proof): 100 certificates are minted through the
// real processes, three of them are burned by their holder, and every proof bundle is
// downloaded. Then every Hallmark process is stopped, and the bundles are checked with
// `@hallmark/verify` against the chain alone: the 97 live ones verify (their issuer's DID from
// the bundle's snapshot, "issuer domain unreachable"), the burned ones report revoked, and one
// whose metadata was tampered with fails. @digitalbazaar/vc, an implementation Hallmark did not
// write, verifies every credential with the DID document the bundle carries.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, HDNodeWallet, JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { verifyBundle } from '../../../packages/verify/src/index.js';
import { verifyIndependently } from '../../../services/certificates/test/credentials-verify.js';
import { startTestStack, type TestStack } from '../src/index.js';

// anvil account 5: the batches' holding address; as the tokens' owner it may burn them.
const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const COUNT = 100;
const BATCH = 50;

let stack: TestStack;
let ent: string;
const ids: string[] = [];
const tokenIds = new Map<string, number>();
const bundles = new Map<string, any>();
let burned: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    env: { HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200', HALLMARK_CREDENTIALS_BATCH_SIZE: '50' },
  });
  ent = newId('enterprise');
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

const principal = () => ({
  enterprise_id: ent,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
});

async function contractAddress(): Promise<string> {
  const db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  try {
    const { rows } = await db.query<{ value: string }>(
      "SELECT value FROM chain_state WHERE key = 'contract:31337'",
    );
    return rows[0]!.value;
  } finally {
    await db.end();
  }
}

describe('a certificate outlives Hallmark', () => {
  it('mints 100 certificates, burns three and downloads every proof bundle', async () => {
    const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    try {
      for (let b = 0; b < COUNT / BATCH; b++) {
        const batch = await certificates.api.mintBatch({
          principal: principal(),
          idempotency_key: `outlives-${b}`,
          holder_address: HOLDER,
          items: Array.from({ length: BATCH }, (_, i) => ({
            name: `Handbag No. ${b * BATCH + i + 1}`,
            metadata_json: JSON.stringify({ serialNumber: `SN-${b}-${i}`, category: 'bags' }),
          })),
        });
        const minted = await eventually(
          async () => {
            const r = await certificates.api.getMintBatch(
              { principal: principal(), batch_id: batch.batch_id, wait_ms: 30_000, status_only: false },
              { deadlineMs: 40_000 },
            );
            expect(r.status).toBe('minted');
            return r;
          },
          { timeoutMs: 180_000, intervalMs: 500 },
        );
        for (const c of minted.certificates) {
          ids.push(c.id);
          tokenIds.set(c.id, Number(c.token_id));
        }
      }
    } finally {
      certificates.close();
    }
    expect(ids).toHaveLength(COUNT);

    // The holder burns three tokens on chain; the burn indexer records them (and revokes).
    burned = [ids[3]!, ids[50]!, ids[99]!];
    const provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
    try {
      const holder = HDNodeWallet.fromPhrase(
        'test test test test test test test test test test test junk',
        undefined,
        "m/44'/60'/0'/0/5",
      ).connect(provider);
      const token = new Contract(await contractAddress(), ['function burn(uint256 tokenId)'], holder);
      // Explicit nonces: ethers' pending-count lookup can lag anvil's automine between sends.
      let nonce = await provider.getTransactionCount(holder.address, 'latest');
      for (const id of burned)
        await (await token.getFunction('burn')(tokenIds.get(id)!, { nonce: nonce++ })).wait();
    } finally {
      provider.destroy();
    }
    for (const id of burned)
      await eventually(
        async () => expect((await stack.call('GET', `/api/certificate/public/${id}`)).body.burned).toBe(true),
        { timeoutMs: 30_000, intervalMs: 250 },
      );

    for (const id of ids) {
      const bundle = await eventually(
        async () => {
          const res = await fetch(`${stack.gatewayUrl}/api/certificate/${id}/proof`);
          expect(res.status).toBe(200);
          return res.json();
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      bundles.set(id, bundle);
    }
    expect(bundles.size).toBe(COUNT);
  }, 400_000);

  it('with every Hallmark process stopped, each bundle is checked against the chain alone: 97 verify, the burned report revoked, a tampered one fails', async () => {
    expect(bundles.size).toBe(COUNT);
    await Promise.all([...stack.processes.values()].map((p) => p.stop()));
    await expect(fetch(`${stack.gatewayUrl}/readyz`)).rejects.toThrow();

    const rpcUrl = stack.env.HALLMARK_CHAIN_RPC_URL!;
    const reports = new Map<string, Awaited<ReturnType<typeof verifyBundle>>>();
    for (const id of ids) reports.set(id, await verifyBundle(bundles.get(id), { rpcUrl, timeoutMs: 10_000 }));

    for (const id of ids) {
      const report = reports.get(id)!;
      if (burned.includes(id)) {
        expect({ id, verified: report.verified, status: report.status }).toEqual({
          id,
          verified: false,
          status: 'revoked',
        });
      } else {
        expect({ id, verified: report.verified, status: report.status }).toEqual({
          id,
          verified: true,
          status: 'valid',
        });
        // The issuer's DID is Hallmark-hosted and Hallmark is gone: the bundle's snapshot speaks.
        expect(report.notes.join(' ')).toMatch(/issuer domain unreachable/i);
      }
    }

    // One field of one certificate changed after the fact: the signature and the Merkle proof
    // both refuse it.
    const tampered = structuredClone(bundles.get(ids[10]!));
    tampered.metadata.metadata.category = 'watches';
    tampered.credential.credentialSubject.metadata.category = 'watches';
    const bad = await verifyBundle(tampered, { rpcUrl, timeoutMs: 2_000 });
    expect(bad.verified).toBe(false);
    expect(bad.status).toBe('invalid');
    const failed = bad.checks.filter((c) => c.result === 'failed').map((c) => c.name);
    expect(failed.length).toBeGreaterThanOrEqual(2);

    // An independent implementation agrees on every credential's signature.
    for (const id of ids) {
      const b = bundles.get(id);
      const r = await verifyIndependently(b.credential, [b.issuer.didDocument]);
      expect({ id, verified: r.verified, error: r.error }).toEqual({ id, verified: true, error: undefined });
    }
    const r = await verifyIndependently(tampered.credential, [tampered.issuer.didDocument]);
    expect(r.verified).toBe(false);
  }, 400_000);
});
