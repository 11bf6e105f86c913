// Certificates through the real processes on anvil: a batch minted over the certificates
// service's gRPC API (as bulk and platform will call it), read by anyone through the
// gateway's public endpoint; health; and a restart of the service that reuses the dev
// contract it deployed at its first start.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'; // anvil account 5

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;

beforeAll(async () => {
  stack = await startTestStack({ anvil: true });
  client = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
}, 120_000);

afterAll(async () => {
  client?.close();
  await stack?.close();
}, 60_000);

const principal = () => ({
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
});

async function mintAndWait(key: string, name: string) {
  const res = await client.api.mintBatch({
    principal: principal(),
    idempotency_key: key,
    holder_address: HOLDER,
    items: [{ name, image_url: 'https://img.hallmark.test/1.png', metadata_json: '{"artist":"Ada"}' }],
  });
  const id = res.certificates[0]!.id;
  const body = await eventually(
    async () => {
      const r = await stack.call('GET', `/api/certificate/public/${id}`);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('minted');
      return r.body;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  return { id, body };
}

async function devContract(): Promise<string | undefined> {
  const db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  try {
    const { rows } = await db.query<{ value: string }>(
      "SELECT value FROM chain_state WHERE key = 'contract:31337'",
    );
    return rows[0]?.value;
  } finally {
    await db.end();
  }
}

describe('certificates on anvil through the gateway', () => {
  it('a minted certificate is publicly readable with its provenance; unknown ids are 404; health is ok', async () => {
    const { id, body } = await mintAndWait('e2e-batch-1', 'Gold Watch');
    expect(body).toMatchObject({
      id,
      name: 'Gold Watch',
      imageUrl: 'https://img.hallmark.test/1.png',
      metadata: { name: 'Gold Watch', artist: 'Ada', tokenId: expect.any(Number) },
      burned: false,
    });
    expect(body.provenance).toEqual([
      expect.objectContaining({
        kind: 'minted',
        to: HOLDER,
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        blockNumber: expect.any(Number),
      }),
    ]);

    const unknown = await stack.call('GET', `/api/certificate/public/${newId('certificate')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'resource_not_found' });

    const health = await stack.call('GET', '/api/certificate/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', timestamp: expect.any(String) });
  }, 60_000);

  it('a restarted service reuses its dev contract and keeps minting', async () => {
    const before = await devContract();
    expect(before).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await stack.processes.get('certificates')!.stop();
    const down = await stack.call('GET', '/api/certificate/health');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('degraded');
    await stack.startService('certificates');
    expect(await devContract()).toBe(before);
    await eventually(
      async () => expect((await stack.call('GET', '/api/certificate/health')).status).toBe(200),
      {
        timeoutMs: 15_000,
        intervalMs: 200,
      },
    );
    const { body } = await mintAndWait('e2e-batch-2', 'Silver Ring');
    expect(body.metadata.tokenId).toBeGreaterThan(1);
  }, 90_000);
});
