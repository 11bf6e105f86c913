// Warranty, burn indexer and allowlist through the real processes on anvil and the real
// gateway: a warranty set with a session and changed with an API key shows in the public read
// with its status; the warranty template; a token its holder burns on chain is marked burned
// by the indexer; an address requested on the allowlist is confirmed on chain; a warranty change
// is announced on chain (ERC-4906 MetadataUpdate) by the relayer's pass.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, HDNodeWallet, Interface, JsonRpcProvider, Wallet } from 'ethers';
import pg from 'pg';
import { startTestStack, type Reply, type TestStack } from '../src/index.js';
import { createKey } from '../src/keys.js';

// anvil account 5: the batch's holding address; as the token owner it may burn.
const HOLDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';

let stack: TestStack;
let client: GrpcClient<CertificatesServiceClient>;
let ent: string;
let session: string;
let certs: { id: string; tokenId: number }[];

beforeAll(async () => {
  stack = await startTestStack({ anvil: true });
  client = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  ent = newId('enterprise');
  session = await stack.token({ ent });
  const res = await client.api.mintBatch({
    principal: {
      enterprise_id: ent,
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    },
    idempotency_key: 'warranty-e2e-1',
    holder_address: HOLDER,
    items: [{ name: 'Chronograph' }, { name: 'Bracelet' }],
  });
  certs = await Promise.all(
    res.certificates.map((c) =>
      eventually(
        async () => {
          const r = await stack.call('GET', `/api/certificate/public/${c.id}`);
          expect(r.body.status).toBe('minted');
          return { id: c.id, tokenId: r.body.tokenId as number };
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      ),
    ),
  );
}, 120_000);

afterAll(async () => {
  client?.close();
  await stack?.close();
}, 60_000);

/** Status and param of an error in either surface's envelope (/api: flat, /api/v1: `error`). */
function expectError(res: Reply, status: number, param?: string) {
  const got = typeof res.body?.error === 'object' ? res.body.error.param : res.body?.param;
  expect({ status: res.status, param: got }).toEqual({ status, param });
}

const warranty = {
  period: 2,
  type: 'Manufacturer',
  startDate: '2020-03-01',
  coverage: 'Movement and case',
  claimProcess: 'Any boutique',
  contactInfo: 'care@atelier.test',
};

describe('warranty through the gateway', () => {
  it('set with a session, changed with an API key, shown by the public read with its status', async () => {
    const [cert] = certs;
    const set = await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
      auth: session,
      body: warranty,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      success: true,
      changed: true,
      warranty: { period: 2, endDate: '2022-03-01', status: 'expired' },
    });

    const key = await createKey(stack, session, { permissions: ['transactions.update'] });
    const changed = await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
      auth: key.key,
      body: { ...warranty, period: 'Lifetime', termsUrl: 'https://atelier.test/terms' },
    });
    expect(changed.status).toBe(200);

    const pub = await stack.call('GET', `/api/certificate/public/${cert!.id}`);
    expect(pub.body.metadata.warranty).toMatchObject({
      period: 'Lifetime',
      endDate: '2120-03-01',
      status: 'active',
      termsUrl: 'https://atelier.test/terms',
    });
    expect(pub.body.provenance.map((p: { kind: string }) => p.kind)).toEqual([
      'minted',
      'warranty_set',
      'warranty_changed',
    ]);

    expectError(
      await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
        auth: session,
        body: { ...warranty, termsUrl: 'http://atelier.test/terms' },
      }),
      400,
      'termsUrl',
    );
    expectError(
      await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
        auth: session,
        body: { ...warranty, period: 4 },
      }),
      400,
      'period',
    );
    const foreign = await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
      auth: await stack.token(),
      body: warranty,
    });
    expect(foreign.status).toBe(404);
  });

  it('each warranty change appears on chain as ERC-4906 MetadataUpdate(tokenId), sent by the relayer', async () => {
    const [cert] = certs;
    const db = new pg.Client({
      connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
    });
    await db.connect();
    const provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
    try {
      const { rows } = await db.query<{ value: string }>(
        "SELECT value FROM chain_state WHERE key = 'contract:31337'",
      );
      const erc4906 = new Interface(['event MetadataUpdate(uint256 _tokenId)']);
      const announced = async () =>
        (
          await provider.getLogs({
            address: rows[0]!.value,
            topics: [erc4906.getEvent('MetadataUpdate')!.topicHash],
            fromBlock: 0,
          })
        ).filter((l) => erc4906.parseLog(l)!.args[0] === BigInt(cert!.tokenId)).length;
      /** Every queued update is in a confirmed announcement. */
      const settled = async () => {
        const { rows: open } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM metadata_updates u
           LEFT JOIN metadata_announcements a ON a.id = u.announcement_id
           WHERE a.id IS NULL OR a.status <> 'confirmed'`,
        );
        expect(open[0]!.n).toBe(0);
      };
      await eventually(settled, { timeoutMs: 20_000, intervalMs: 200 });
      const before = await announced();
      const res = await stack.call('PATCH', `/api/certificates/${cert!.id}/warranty`, {
        auth: session,
        body: { ...warranty, coverage: `Movement, case and strap (${Date.now()})` },
      });
      expect(res.body).toMatchObject({ success: true, changed: true });
      await eventually(
        async () => {
          await settled();
          expect(await announced()).toBe(before + 1);
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
    } finally {
      provider.destroy();
      await db.end();
    }
  });

  it('init-warranty creates the template once; get answers it', async () => {
    const first = await stack.call('POST', '/api/enterprise/templates/init-warranty', { auth: session });
    expect(first.status).toBe(201);
    expect(first.body.fields).toHaveLength(9);
    const again = await stack.call('POST', '/api/enterprise/templates/init-warranty', { auth: session });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const got = await stack.call('GET', `/api/enterprise/templates/${first.body.id}`, { auth: session });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: first.body.id, name: 'Warranty', fields: first.body.fields });
    expect(typeof got.body.createdAt).toBe('string');
  });
});

describe('burn indexer and allowlist', () => {
  it('a token burned by its holder is marked burned with one provenance entry', async () => {
    const db = new pg.Client({
      connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
    });
    await db.connect();
    let contract: string;
    try {
      const { rows } = await db.query<{ value: string }>(
        "SELECT value FROM chain_state WHERE key = 'contract:31337'",
      );
      contract = rows[0]!.value;
    } finally {
      await db.end();
    }
    const provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
    try {
      const holder = HDNodeWallet.fromPhrase(
        'test test test test test test test test test test test junk',
        undefined,
        "m/44'/60'/0'/0/5",
      ).connect(provider);
      const token = new Contract(contract, ['function burn(uint256 tokenId)'], holder);
      const receipt = await (await token.getFunction('burn')(certs[1]!.tokenId)).wait();
      const pub = await eventually(
        async () => {
          const r = await stack.call('GET', `/api/certificate/public/${certs[1]!.id}`);
          expect(r.body.burned).toBe(true);
          return r.body;
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      const burns = pub.provenance.filter((p: { kind: string }) => p.kind === 'burned');
      expect(burns).toEqual([
        expect.objectContaining({ actor: HOLDER, from: HOLDER, transactionHash: receipt!.hash }),
      ]);
    } finally {
      provider.destroy();
    }
  });

  it('an address requested on the allowlist is confirmed on chain; invalid ones are 400 address', async () => {
    const key = await createKey(stack, session, { permissions: ['users.read', 'users.update'] });
    const address = Wallet.createRandom().address;
    const added = await stack.call('POST', '/api/v1/allowlist', { auth: key.key, body: { address } });
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({ address, allowlistStatus: 'pending', allowlistRetryCount: 0 });

    const waited = await stack.call('POST', '/api/v1/allowlist/wait-for-confirmation', {
      auth: key.key,
      body: { address, timeoutMs: 20_000 },
    });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      allowlistStatus: 'success',
      onChain: true,
      confirmed: true,
      timedOut: false,
    });

    const check = await stack.call('GET', `/api/v1/allowlist/check/${address}`, { auth: key.key });
    expect(check.body).toMatchObject({ address, allowlistStatus: 'success', onChain: true, requested: true });

    expectError(await stack.call('GET', '/api/v1/allowlist/check/0x1234', { auth: key.key }), 400, 'address');
    expectError(
      await stack.call('POST', '/api/v1/allowlist', { auth: key.key, body: { address: 'nope' } }),
      400,
      'address',
    );
    expectError(
      await stack.call('POST', '/api/v1/allowlist/wait-for-confirmation', {
        auth: key.key,
        body: { address, timeoutMs: 30_001 },
      }),
      400,
      'timeoutMs',
    );
  });
});
