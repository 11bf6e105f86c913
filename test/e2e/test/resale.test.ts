// Resale without crypto through the real processes (gateway, certificates with its gift
// workflow on a real Restate, notify with a real SMTP sink, keys, anvil): the brand gifts a
// certificate to its first owner; the owner, signed in by e-mail, shows a buyer an ownership
// link and resells to the buyer's e-mail; the buyer (who has no wallet) claims with the link
// the e-mail carries, and the token is on chain in the buyer's custodial wallet with
// provenance `resold`; with the brand's approval required, nothing reaches the buyer until the
// brand's key approves, and a refusal leaves the certificate with its owner.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { createKey } from '../src/keys.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let certificates: GrpcClient<CertificatesServiceClient>;
let provider: JsonRpcProvider;
let contract: Contract;
let db: pg.Client;
const enterprise = newId('enterprise');
let brand: string; // the brand's staff session (gifts the first sale)
let brandKey: string; // the brand's API key (approves and refuses)
let certs: { id: string; tokenId: number }[];

const linkIn = (text: string) => /\/claim\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];

beforeAll(async () => {
  stack = await startTestStack({
    anvil: true,
    restate: true,
    smtp: true,
    env: { HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200' },
  });
  certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!, {
    deadlineMs: 40_000,
  });
  const principal = {
    enterprise_id: enterprise,
    livemode: true,
    actor_id: newId('apiKey'),
    actor_type: 'api_key',
    scopes: [],
  };
  const batch = await certificates.api.mintBatch({
    principal,
    idempotency_key: 'resale-e2e',
    holder_address: '',
    holder_account: { kind: 'enterprise', id: '' },
    items: Array.from({ length: 3 }, (_, i) => ({ name: `Chronograph ${i}` })),
  });
  const minted = await certificates.api.getMintBatch({
    principal,
    batch_id: batch.batch_id,
    wait_ms: 30_000,
    status_only: false,
  });
  expect(minted.status).toBe('minted');
  certs = minted.certificates.map((c) => ({ id: c.id, tokenId: Number(c.token_id) }));
  db = new pg.Client({
    connectionString: serviceDatabaseUrl(stack.postgres.url, `${stack.prefix}_certificates`),
  });
  await db.connect();
  const { rows } = await db.query<{ value: string }>(
    "SELECT value FROM chain_state WHERE key = 'contract:31337'",
  );
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
  contract = new Contract(rows[0]!.value, ['function ownerOf(uint256) view returns (address)'], provider);
  brand = await stack.token({ ent: enterprise, sub: 'brand-staff', email: 'staff@brand.example' });
  brandKey = (await createKey(stack, brand, { permissions: ['admin.*'] })).key;
}, 240_000);

afterAll(async () => {
  provider?.destroy();
  certificates?.close();
  await db?.end();
  await stack?.close();
}, 60_000);

const ownerOf = (tokenId: number) => contract.getFunction('ownerOf')(tokenId) as Promise<string>;

/** The claim link e-mailed to `to` (the newest one). */
async function mailedLink(to: string): Promise<string> {
  const mail = await stack.smtp!.waitForMessage((m) => m.to.some((t) => t.toLowerCase() === to), 30_000);
  return linkIn(mail.text)!;
}

/** `who` claims the claim link with their session; the answer once the transfer is confirmed. */
async function claimAs(who: string, token: string) {
  const res = await stack.call('POST', `/api/certificates/gift/claim/${token}`, { auth: who });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'claimed' });
  return res.body;
}

/** The brand gifts a certificate to a first owner, who claims it: their custodial wallet holds it. */
async function firstSale(certId: string, sub: string): Promise<{ session: string; wallet: string }> {
  const email = `${sub}@example.com`;
  const created = await stack.call('POST', '/api/certificates/gift/create', {
    auth: brand,
    body: { certificateId: certId, recipientEmail: email },
  });
  expect(created.status).toBe(201);
  const session = await stack.token({ ent: enterprise, sub, email });
  const claimed = await claimAs(session, await mailedLink(email));
  return { session, wallet: claimed.gift.recipientAddress };
}

describe('resale to a buyer who has no wallet', () => {
  it('the owner proves ownership by link, resells by e-mail; the buyer claims from the e-mail; the token moves on chain; provenance resold; the link then says transferred', async () => {
    const owner = await firstSale(certs[0]!.id, 'first-owner');
    expect(await ownerOf(certs[0]!.tokenId)).toBe(owner.wallet);

    const link = await stack.call('POST', '/api/certificates/ownership-links', {
      auth: owner.session,
      body: { certificateId: certs[0]!.id },
    });
    expect(link.status).toBe(201);
    const proofUrl = `/api/ownership/${link.body.token}`;
    expect((await stack.call('GET', proofUrl)).body).toMatchObject({
      status: 'owned',
      certificateId: certs[0]!.id,
      holderAddress: owner.wallet,
    });

    const started = await stack.call('POST', '/api/certificates/resale/create', {
      auth: owner.session,
      body: { certificateId: certs[0]!.id, buyerEmail: 'Buyer@Example.com', message: 'Enjoy it' },
    });
    expect(started.status).toBe(201);
    expect(started.body.resale).toMatchObject({
      status: 'pending',
      approval: null,
      sellerAddress: owner.wallet,
    });
    expect(JSON.stringify(started.body)).not.toMatch(/claimToken|buyer@example/i);
    // One pending hand-over: the owner cannot also gift it meanwhile.
    const gift = await stack.call('POST', '/api/certificates/gift/create', {
      auth: owner.session,
      body: { certificateId: certs[0]!.id, recipientEmail: 'other@example.com' },
    });
    expect(gift.status).toBe(409);

    const mail = await stack.smtp!.waitForMessage(
      (m) => m.to.some((t) => t.toLowerCase() === 'buyer@example.com'),
      30_000,
    );
    expect(mail.text).toContain('is transferring it to you');
    expect(mail.text).toContain('Enjoy it');
    const buyer = await stack.token({ ent: enterprise, sub: 'buyer', email: 'buyer@example.com' });
    const claimed = await claimAs(buyer, linkIn(mail.text)!);
    const buyerWallet = claimed.gift.recipientAddress as string;
    expect(buyerWallet).not.toBe(owner.wallet);
    expect(await ownerOf(certs[0]!.tokenId)).toBe(buyerWallet);

    const pub = await stack.call('GET', `/api/certificate/public/${certs[0]!.id}`);
    expect(pub.body.provenance.map((p: { kind: string }) => p.kind)).toContain('resold');
    const read = await stack.call('GET', `/api/certificates/resale/${started.body.resale.resaleId}`, {
      auth: owner.session,
    });
    expect(read.body.resale).toMatchObject({ status: 'claimed', buyerAddress: buyerWallet });
    expect((await stack.call('GET', proofUrl)).body).toMatchObject({
      status: 'transferred',
      holderAddress: null,
    });
    const { rows } = await db.query(
      "SELECT type FROM outbox WHERE type LIKE 'certificate.resale_%' AND payload->'data'->'object'->>'id' = $1 ORDER BY seq",
      [started.body.resale.resaleId],
    );
    expect(rows.map((r) => r.type)).toEqual(['certificate.resale_started', 'certificate.resale_completed']);
  }, 180_000);
});

describe('the brand’s approval', () => {
  it('with approval required the buyer is e-mailed only after the brand’s key approves; a refusal leaves the certificate with its owner', async () => {
    const policy = await stack.call('PUT', '/api/certificates/resale-policy', {
      auth: brandKey,
      body: { approvalRequired: true },
    });
    expect(policy.body).toMatchObject({ approvalRequired: true });
    const owner = await firstSale(certs[1]!.id, 'second-owner');

    const refusedOne = await stack.call('POST', '/api/certificates/resale/create', {
      auth: owner.session,
      body: { certificateId: certs[1]!.id, buyerEmail: 'refused-buyer@example.com' },
    });
    expect(refusedOne.body.resale).toMatchObject({ status: 'awaiting_approval', approval: 'requested' });
    const id1 = refusedOne.body.resale.resaleId;
    // The owner's session cannot decide (an API key decides).
    expect(
      (await stack.call('POST', `/api/certificates/resale/${id1}/approve`, { auth: owner.session, body: {} }))
        .status,
    ).toBe(401);
    const refused = await stack.call('POST', `/api/certificates/resale/${id1}/refuse`, {
      auth: brandKey,
      body: { reason: 'Serial number under investigation' },
    });
    expect(refused.body.resale).toMatchObject({
      status: 'revoked',
      approval: 'refused',
      approvalReason: 'Serial number under investigation',
    });
    expect(await ownerOf(certs[1]!.tokenId)).toBe(owner.wallet);

    const second = await stack.call('POST', '/api/certificates/resale/create', {
      auth: owner.session,
      body: { certificateId: certs[1]!.id, buyerEmail: 'approved-buyer@example.com' },
    });
    expect(second.status).toBe(201);
    const id2 = second.body.resale.resaleId;
    const approved = await stack.call('POST', `/api/certificates/resale/${id2}/approve`, {
      auth: brandKey,
      body: {},
    });
    expect(approved.body.resale).toMatchObject({
      status: 'pending',
      approval: 'approved',
      notification: 'sent',
    });
    const buyer = await stack.token({
      ent: enterprise,
      sub: 'approved-buyer',
      email: 'approved-buyer@example.com',
    });
    const claimed = await claimAs(buyer, await mailedLink('approved-buyer@example.com'));
    expect(await ownerOf(certs[1]!.tokenId)).toBe(claimed.gift.recipientAddress);
    // The refused buyer was never e-mailed.
    expect(
      stack.smtp!.messages.some((m) => m.to.some((t) => t.toLowerCase() === 'refused-buyer@example.com')),
    ).toBe(false);
    const { rows } = await db.query(
      "SELECT type FROM outbox WHERE type LIKE 'certificate.resale_%' AND payload->'data'->'object'->>'id' = $1 ORDER BY seq",
      [id1],
    );
    expect(rows.map((r) => r.type)).toEqual([
      'certificate.resale_started',
      'certificate.resale_approval_requested',
      'certificate.resale_refused',
    ]);
  }, 240_000);
});
