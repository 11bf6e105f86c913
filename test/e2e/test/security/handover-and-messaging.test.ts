// Security group, findings 3 and 4 of the review (docs/security.md › Hand-over exclusivity,
// Messaging limits), proven through the real gateway and processes on anvil.
//
// 3. A certificate has at most one pending hand-over: while its certificate voucher is
//    unclaimed, a gift of the same certificate is refused (409) and the voucher page still
//    tells the truth (available, and the recipient's claim works); once the voucher is claimed
//    or has expired, a gift works.
// 4. Messaging is bounded per enterprise: gifts created (create → revoke → create with a new
//    address each time included) past the limit are 429 with retry_after, and open listen
//    sessions are capped (the next is 429; closing one frees its slot). Resends per enterprise:
//    services/gateway/test/routes/gift-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { CertificateVoucherServiceClient } from '@hallmark/proto/certificates/v1/vouchers';
import pg from 'pg';
import { startTestStack, type TestStack } from '../../src/index.js';

let stack: TestStack;
let certificates: GrpcClient<CertificatesServiceClient>;
let vouchers: GrpcClient<CertificateVoucherServiceClient>;
let db: pg.Client;
const enterprise = newId('enterprise');
const issuer = {
  enterprise_id: enterprise,
  livemode: true,
  actor_id: newId('apiKey'),
  actor_type: 'api_key',
  scopes: [],
};
let sender: string;
let certs: string[];
/** Another enterprise with one certificate: the create → revoke → create loop's own budget. */
const looper = { ...issuer, enterprise_id: newId('enterprise'), actor_id: newId('apiKey') };
let looperSession: string;
let looperCert: string;

const GIFT_LIMIT = 4;
const LISTEN_LIMIT = 2;

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    env: {
      HALLMARK_GIFT_CREATE_ENTERPRISE_LIMIT: String(GIFT_LIMIT),
      HALLMARK_LISTEN_MAX_SESSIONS: String(LISTEN_LIMIT),
      HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200',
    },
  });
  certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!, {
    deadlineMs: 40_000,
  });
  vouchers = createGrpcClient(CertificateVoucherServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
  const batch = await certificates.api.mintBatch({
    principal: issuer,
    idempotency_key: 'handover-e2e',
    holder_address: '',
    holder_account: { kind: 'enterprise', id: '' },
    items: Array.from({ length: 4 }, (_, i) => ({
      name: `Watch ${i}`,
      image_url: `https://img.hallmark.test/${i}.png`,
    })),
  });
  const minted = await certificates.api.getMintBatch({
    principal: issuer,
    batch_id: batch.batch_id,
    wait_ms: 30_000,
    status_only: false,
  });
  expect(minted.status).toBe('minted');
  certs = minted.certificates.map((c) => c.id);
  db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  sender = await stack.token({ ent: enterprise, sub: 'sender', email: 'sender@example.com' });
  const other = await certificates.api.mintBatch({
    principal: looper,
    idempotency_key: 'handover-e2e-loop',
    holder_address: '',
    holder_account: { kind: 'enterprise', id: '' },
    items: [{ name: 'Loop', image_url: 'https://img.hallmark.test/loop.png' }],
  });
  const loop = await certificates.api.getMintBatch({
    principal: looper,
    batch_id: other.batch_id,
    wait_ms: 30_000,
    status_only: false,
  });
  looperCert = loop.certificates[0]!.id;
  looperSession = await stack.token({ ent: looper.enterprise_id, sub: 'looper' });
}, 240_000);

afterAll(async () => {
  certificates?.close();
  vouchers?.close();
  await db?.end();
  await stack?.close();
}, 60_000);

const voucherFor = async (certificateId: string) =>
  (
    await vouchers.api.createVouchers({
      principal: issuer,
      idempotency_key: newId('request'),
      items: [{ certificate_id: certificateId, expiry_days: 30, metadata_json: '{"sku":"W-1"}' }],
    })
  ).vouchers[0]!;
const gift = (certificateId: string, auth = sender, email = 'bob@example.com') =>
  stack.call('POST', '/api/certificates/gift/create', {
    auth,
    body: { certificateId, recipientEmail: email },
  });

describe('finding 3: one pending hand-over per certificate', () => {
  it('an unclaimed voucher refuses a gift of its certificate (409), its page still says available and its claim works; then its recipient can gift it', async () => {
    const v = await voucherFor(certs[0]!);
    const refused = await gift(certs[0]!);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: 'resource_locked', param: 'certificateId' });
    expect(refused.body.error).toContain(`a pending certificate voucher (${v.id})`);

    const page = await stack.call('GET', `/vouchers/${v.id}`);
    expect(page.text).toContain('data-status="available"');
    // A user of the issuing enterprise (so the certificate stays in its records and she may gift
    // it from her own wallet afterwards).
    const ada = await stack.token({ ent: enterprise, sub: 'ada', email: 'ada@example.com' });
    const claimed = await stack.call('POST', `/api/certificates/vouchers/${v.id}/claim`, { auth: ada });
    expect(claimed.status).toBe(200);
    expect((await stack.call('GET', `/vouchers/${v.id}`)).text).toContain('data-status="claimed"');

    // Claimed: that hand-over is over; the certificate is the recipient's to gift.
    const regift = await gift(certs[0]!, ada, 'carol@example.com');
    expect(regift.status).toBe(201);
  }, 120_000);

  it('after the voucher expired, the issuer can gift the certificate', async () => {
    const v = await voucherFor(certs[1]!);
    expect((await gift(certs[1]!)).status).toBe(409);
    // Time passes: the voucher's expiry, and with it its hold's (they are the same instant).
    await db.query("UPDATE certificate_vouchers SET expires_at = now() - interval '1 second' WHERE id = $1", [
      v.id,
    ]);
    await db.query("UPDATE certificates SET handover_until = now() - interval '1 second' WHERE id = $1", [
      certs[1],
    ]);
    expect((await stack.call('GET', `/vouchers/${v.id}`)).text).toContain('data-status="expired"');
    const created = await gift(certs[1]!);
    expect(created.status).toBe(201);
    // And now the gift holds it: a second gift is refused naming the first.
    const second = await gift(certs[1]!, sender, 'dave@example.com');
    expect(second.status).toBe(409);
    expect(second.body.error).toContain(`a pending gift (${created.body.transferId})`);
  }, 120_000);
});

describe('finding 4: messaging limits per enterprise', () => {
  it('gift create → revoke → create with a new address each time is refused past the enterprise limit with 429 and retry_after', async () => {
    let created = 0;
    for (let i = 0; ; i++) {
      const res = await gift(looperCert, looperSession, `r${i}@example.com`);
      if (res.status === 429) {
        expect(res.body).toMatchObject({ success: false, code: 'rate_limit_exceeded' });
        expect(res.body.retry_after).toBeGreaterThan(0);
        expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after));
        break;
      }
      expect(res.status).toBe(201);
      created++;
      const revoked = await stack.call('POST', `/api/certificates/gift/revoke/${res.body.transferId}`, {
        auth: looperSession,
      });
      expect(revoked.status).toBe(200);
      expect(i).toBeLessThan(GIFT_LIMIT + 1);
    }
    expect(created).toBe(GIFT_LIMIT);
    // Another enterprise's budget is its own.
    expect((await gift(certs[2]!)).status).toBe(201);
  }, 120_000);

  it('open listen sessions are capped per enterprise: the next is 429 with retry_after, a closed one frees its slot', async () => {
    const admin = await stack.token({ ent: newId('enterprise'), sub: 'dev' });
    const open = () => {
      const abort = new AbortController();
      const res = fetch(`${stack.gatewayUrl}/api/v1/listen`, {
        headers: { authorization: `Bearer ${admin}` },
        signal: abort.signal,
      });
      return { abort, res };
    };
    const sessions = [open(), open()];
    for (const s of sessions) expect((await s.res).status).toBe(200);
    const third = open();
    const refused = await third.res;
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; retry_after: number } };
    expect(body.error).toMatchObject({ code: 'concurrent_limit_exceeded', retry_after: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(body.error.retry_after));

    sessions[0]!.abort.abort();
    // The gateway ends the stream, notify the session: the slot comes back.
    let again: Response | undefined;
    for (const until = Date.now() + 15_000; Date.now() < until;) {
      const next = open();
      again = await next.res;
      if (again.status === 200) {
        next.abort.abort();
        break;
      }
      await again.text();
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(again?.status).toBe(200);
    sessions[1]!.abort.abort();
  }, 60_000);
});
