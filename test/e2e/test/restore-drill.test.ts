// The restore drill (`pnpm restore-drill`, packages/devstack/src/restore-drill.ts) against a
// stack with a few minted certificates: the backup of every service database restores into a
// fresh set of databases, and a stack started on them serves those certificates exactly as the
// original did. The drill compares what it reads (status and body), it does not just see 200s.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { databaseUrlOf, readProblem, runRestoreDrill } from '@hallmark/devstack';
import { createGrpcClient, newId, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';

// anvil account 5: the holder of the minted batch.
const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;
let minted: string[];

beforeAll(async () => {
  stack = await startTestStack({ anvil: true });
  client = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  const res = await client.api.mintBatch({
    principal: {
      enterprise_id: newId('enterprise'),
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    },
    idempotency_key: `restore-drill-${newId('request')}`,
    holder_address: HOLDER,
    items: ['Bracelet', 'Watch', 'Ring'].map((name) => ({ name, metadata_json: '{"drill":true}' })),
  });
  minted = res.certificates.map((c) => c.id);
  for (const id of minted)
    await eventually(
      async () => {
        const r = await stack.call('GET', `/api/certificate/public/${id}`);
        expect(r.body?.status).toBe('minted');
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
}, 180_000);

afterAll(async () => {
  client?.close();
  await stack?.close();
}, 60_000);

it('restores a backup of every service database into fresh databases whose stack serves the certificates as before', async () => {
  const result = await runRestoreDrill({
    databaseUrl: stack.postgres.url,
    prefix: stack.prefix,
    gatewayUrl: stack.gatewayUrl,
    env: stack.env,
    log: () => undefined,
  });
  expect(result.certificates.map((c) => c.id).sort()).toEqual([...minted].sort());
  expect(result.certificates.filter((c) => !c.ok)).toEqual([]);
  expect(result.ok).toBe(true);
  expect(result.restoredPrefix).not.toBe(stack.prefix);
  expect(result.bytes).toBeGreaterThan(0);
  // The restored databases are dropped after the drill.
  const left = await new pg.Client({ connectionString: databaseUrlOf(stack.postgres.url, 'postgres') });
  await left.connect();
  const { rows } = await left.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [
    `${result.restoredPrefix}_%`,
  ]);
  await left.end();
  expect(rows).toEqual([]);
}, 240_000);

it('fails a certificate the restored stack does not serve exactly as before', () => {
  const was = { status: 200, body: '{"id":"cert_1","status":"minted"}' };
  expect(readProblem(was, was)).toBeUndefined();
  expect(readProblem(was, { status: 404, body: '{}' })).toBe('served 404, was 200');
  expect(readProblem(was, { status: 200, body: '{"id":"cert_1","status":"pending"}' })).toMatch(
    /another body/,
  );
  expect(readProblem({ status: 404, body: '' }, { status: 404, body: '' })).toMatch(/not served before/);
});
