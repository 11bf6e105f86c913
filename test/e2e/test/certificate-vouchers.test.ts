// Certificate vouchers through the real processes on anvil, as bulk uses them: a batch minted
// over gRPC to the issuing enterprise's holding account, GetMintBatch waiting for it, vouchers
// created over gRPC; then, through the real gateway, the public view page and JSON (by id and by
// reference number) and the claim by a recipient's user session, which moves the token on chain
// to the recipient's own custodial wallet.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import {
  CertificateVoucherServiceClient,
  type CertificateVoucher,
} from '@hallmark/proto/certificates/v1/vouchers';
import { Contract, JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../src/index.js';
import { createKey } from '../src/keys.js';

let stack: TestStack;
let certificates: GrpcClient<CertificatesServiceClient>;
let vouchers: GrpcClient<CertificateVoucherServiceClient>;
let provider: JsonRpcProvider;
let contract: Contract;
/** [emailed to ada, open, to be expired, emailed to grace] */
let issued: CertificateVoucher[];
const issuer = {
  enterprise_id: newId('enterprise'),
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};

beforeAll(async () => {
  stack = await startTestStack({ anvil: true });
  certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!, {
    deadlineMs: 40_000,
  });
  vouchers = createGrpcClient(CertificateVoucherServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);

  // As the bulk service does: MintBatch to the holding account, wait, then CreateVouchers.
  const batch = await certificates.api.mintBatch({
    principal: issuer,
    idempotency_key: 'job_e2e:0',
    holder_address: '',
    holder_account: { kind: 'enterprise', id: '' },
    items: ['Gold Watch <b>"No. 1"</b>', 'Silver Ring', 'Bronze Medal', 'Pearl'].map((name, i) => ({
      name,
      image_url: `https://img.hallmark.test/${i}.png`,
      metadata_json: JSON.stringify({ artist: '<script>alert(1)</script>' }),
    })),
  });
  const minted = await certificates.api.getMintBatch({
    principal: issuer,
    batch_id: batch.batch_id,
    wait_ms: 30_000,
    status_only: false,
  });
  expect(minted.status).toBe('minted');
  const emails = ['Ada@Example.com', undefined, undefined, 'grace@example.com'];
  const res = await vouchers.api.createVouchers({
    principal: issuer,
    idempotency_key: 'job_e2e:0:vouchers',
    items: minted.certificates.map((c, i) => ({
      certificate_id: c.id,
      metadata_json: JSON.stringify({ sku: `SKU-${i}` }),
      recipient_email: emails[i],
      expiry_days: 30,
      line_item_gid: `gid://shopify/LineItem/${i}`,
    })),
  });
  issued = res.vouchers;
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
  const address = await certificatesDb(async (db) => {
    const { rows } = await db.query<{ value: string }>(
      "SELECT value FROM chain_state WHERE key = 'contract:31337'",
    );
    return rows[0]!.value;
  });
  contract = new Contract(address, ['function ownerOf(uint256) view returns (address)'], provider);
}, 180_000);

afterAll(async () => {
  provider?.destroy();
  certificates?.close();
  vouchers?.close();
  await stack?.close();
}, 60_000);

async function certificatesDb<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

const ownerOf = (tokenId: number) => contract.getFunction('ownerOf')(tokenId) as Promise<string>;
const claim = (id: string, auth?: string) =>
  stack.call('POST', `/api/certificates/vouchers/${encodeURIComponent(id)}/claim`, { auth });

describe('the voucher view page and public JSON', () => {
  it('the view page shows the certificate, status, expiry, reference number and how to claim, escaped, with a strict CSP', async () => {
    const v = issued[0]!;
    expect(v.url).toBe(`${stack.env.HALLMARK_PUBLIC_URL}/vouchers/${v.id}`);
    const page = await stack.call('GET', `/vouchers/${v.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('data-status="available"');
    expect(page.text).toContain(v.reference_number);
    expect(page.text).toContain('Gold Watch &lt;b&gt;&quot;No. 1&quot;&lt;/b&gt;');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain(`href="${stack.env.HALLMARK_PUBLIC_URL}/verify/${v.certificate_id}"`);
    expect(page.text).toContain(`/api/certificates/vouchers/${v.id}/claim`);
    expect(page.text).toContain('https://img.hallmark.test/0.png');
    expect(page.text).not.toMatch(/ada@example/i);

    const byReference = await stack.call('GET', `/vouchers/${v.reference_number.toLowerCase()}`);
    expect(byReference.status).toBe(200);
    expect(byReference.text).toContain(v.reference_number);
    const unknown = await stack.call('GET', `/vouchers/${newId('certificateVoucher')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('data-status="not_found"');
  }, 30_000);

  it('the public JSON answers {success, data:{voucher, certificate}} by id or reference number; unknown is 404', async () => {
    const v = issued[1]!;
    for (const id of [v.id, v.reference_number]) {
      const res = await stack.call('GET', `/api/certificates/vouchers/${encodeURIComponent(id)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          voucher: expect.objectContaining({
            id: v.id,
            url: v.url,
            referenceNumber: v.reference_number,
            metadata: { sku: 'SKU-1' },
            certificateId: v.certificate_id,
            status: 'available',
            expiresAt: v.expires_at,
            lineItemGid: 'gid://shopify/LineItem/1',
            tokenId: v.token_id,
            claimedAt: null,
          }),
          certificate: expect.objectContaining({
            id: v.certificate_id,
            name: 'Silver Ring',
            status: 'minted',
            tokenId: v.token_id,
          }),
        },
      });
    }
    const emailed = await stack.call('GET', `/api/certificates/vouchers/${issued[0]!.id}`);
    expect(emailed.text).not.toMatch(/ada@example/i);
    const unknown = await stack.call('GET', `/api/certificates/vouchers/HM-0000-0000-1`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'resource_not_found' });
  }, 30_000);
});

describe('claiming a voucher', () => {
  it('needs a user session: none is 401, an API key is refused', async () => {
    const none = await claim(issued[1]!.id);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, code: 'missing_api_key' });
    const key = await createKey(stack, await stack.token());
    const withKey = await claim(issued[1]!.id, key.key);
    expect(withKey.status).toBe(401);
    expect(withKey.body).toMatchObject({ success: false, code: 'invalid_token' });
  }, 30_000);

  it("a recipient's session claims it: the token is on chain in the recipient's own wallet; a replay is the same; anyone else is refused", async () => {
    const v = issued[0]!;
    const ent = newId('enterprise'); // the recipient's own enterprise, not the issuer's
    const ada = await stack.token({ ent, sub: 'ada', email: 'ada@example.com' });
    const res = await claim(v.reference_number, ada);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({
        voucherId: v.id,
        status: 'confirmed',
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        blockNumber: expect.any(Number),
        toAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        certificateId: v.certificate_id,
      }),
    });
    const { toAddress, transactionHash } = res.body.data;
    expect(await ownerOf(v.token_id!)).toBe(toAddress);
    const wallets = await certificatesDb(
      async (db) =>
        (await db.query('SELECT owner_kind, enterprise_id FROM wallets WHERE address = $1', [toAddress]))
          .rows,
    );
    expect(wallets).toEqual([{ owner_kind: 'user', enterprise_id: ent }]);

    const again = await claim(v.id, ada);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ transactionHash, toAddress, replayed: true });

    const eve = await claim(v.id, await stack.token({ sub: 'eve', email: 'ada@example.com' }));
    expect(eve.status).toBe(422);
    expect(eve.body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(eve.body.error).toMatch(/already been claimed/);

    const page = await stack.call('GET', `/vouchers/${v.id}`);
    expect(page.text).toContain('data-status="claimed"');
    const pub = await stack.call('GET', `/api/certificate/public/${v.certificate_id}`);
    expect(pub.body.provenance.map((p: { kind: string }) => p.kind)).toEqual([
      'minted',
      'claimed',
      'transferred',
    ]);
  }, 60_000);

  it("refuses a session whose e-mail is not the voucher's recipient (403), and an expired voucher (422, with its date)", async () => {
    const grace = issued[3]!;
    const wrong = await claim(grace.id, await stack.token({ sub: 'mallory', email: 'mallory@example.com' }));
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ success: false, code: 'insufficient_permissions' });

    const late = issued[2]!;
    await certificatesDb((db) =>
      db.query(`UPDATE certificate_vouchers SET expires_at = '2026-01-02T03:04:00Z' WHERE id = $1`, [
        late.id,
      ]),
    );
    const res = await claim(late.id, await stack.token());
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(res.body.error).toBe('This voucher expired on 2026-01-02 at 03:04 UTC.');
    const page = await stack.call('GET', `/vouchers/${late.id}`);
    expect(page.text).toContain('data-status="expired"');
    // Nothing moved: the token is still in the issuer's holding account.
    const holding = await certificatesDb(
      async (db) =>
        (
          await db.query<{ address: string }>(
            "SELECT address FROM wallets WHERE owner_kind = 'enterprise' AND owner_id = $1",
            [issuer.enterprise_id],
          )
        ).rows[0]!.address,
    );
    expect(await ownerOf(late.token_id!)).toBe(holding);
    expect(await ownerOf(grace.token_id!)).toBe(holding);
  }, 60_000);

  it('certificate_voucher.created and .minted (voucher.created / voucher.minted on the wire) were recorded for the issuing enterprise, without recipient data', async () => {
    const ids = issued.map((v) => v.id);
    const rows = await certificatesDb(
      async (db) =>
        (
          await db.query<{
            type: string;
            payload: { enterprise_id: string; data: { object: { id: string } } };
          }>(
            `SELECT type, payload FROM outbox WHERE type IN ('certificate_voucher.created', 'certificate_voucher.minted')
               AND payload->'data'->'object'->>'id' = ANY($1::text[])`,
            [ids],
          )
        ).rows,
    );
    expect(rows.filter((r) => r.type === 'certificate_voucher.created')).toHaveLength(4);
    expect(rows.filter((r) => r.type === 'certificate_voucher.minted')).toHaveLength(4);
    expect(rows.every((r) => r.payload.enterprise_id === issuer.enterprise_id)).toBe(true);
    expect(JSON.stringify(rows)).not.toMatch(/ada@|grace@/i);
  }, 30_000);
});
