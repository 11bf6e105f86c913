// Security group, the two high findings of the review (docs/security.md), proven through the
// real gateway. Each test failed on the code before its fix.
//
// 1. Certificate-voucher claims fail closed (OWASP API1/API2): a voucher issued to an address
//    is claimed only by a session proving that address.
// 2. A key never holds more authority than its maker (OWASP API5): a member's admin.* key
//    manages only what the member may.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { Contract, JsonRpcProvider } from 'ethers';
import { SignJWT } from 'jose';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  idempotencyKeyOf,
  orderBody,
  serviceQuery,
  startImageServer,
  type ImageServer,
} from '../../src/bulk.js';
import { startTestStack, type TestStack } from '../../src/index.js';
import { createKey } from '../../src/keys.js';

let stack: TestStack;
let images: ImageServer;
let provider: JsonRpcProvider;
let contract: Contract;

beforeAll(async () => {
  images = await startImageServer(mkdtempSync(path.join(tmpdir(), 'hallmark-images-')));
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: { NODE_EXTRA_CA_CERTS: images.caFile, HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
  });
  provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
  const [row] = await serviceQuery<{ value: string }>(
    stack,
    'certificates',
    "SELECT value FROM chain_state WHERE key = 'contract:31337'",
  );
  contract = new Contract(row!.value, ['function ownerOf(uint256) view returns (address)'], provider);
}, 180_000);

afterAll(async () => {
  provider?.destroy();
  await stack?.close();
  await images?.close();
}, 60_000);

/** A session token with exactly these claims (no default e-mail, unlike the dev token). */
function sessionWith(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ ent: newId('enterprise'), ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(`user-${Math.random().toString(36).slice(2, 10)}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(stack.secrets.jwtSecret));
}

describe('finding 1: a certificate-voucher claim fails closed', () => {
  let voucher: { id: string; referenceNumber: string };
  let tokenId: number;
  let holding: string;

  beforeAll(async () => {
    // A paid order's voucher for the customer's address (orderBody: buyer@example.com).
    const auth = await stack.token();
    const body = orderBody(1);
    body.metadata = [{ ...body.metadata[0]!, imageUrl: `${images.url}/watch.png` }];
    const res = await stack.call('POST', '/api/bulk-mint', {
      auth,
      body,
      headers: { 'idempotency-key': idempotencyKeyOf(body) },
    });
    expect(res.status).toBe(201);
    voucher = res.body.vouchers[0];
    const pub = await stack.call('GET', `/api/certificates/vouchers/${voucher.id}`);
    tokenId = pub.body.data.voucher.tokenId;
    holding = await contract.getFunction('ownerOf')(tokenId);
  }, 120_000);

  const claim = (auth: string) =>
    stack.call('POST', `/api/certificates/vouchers/${voucher.id}/claim`, { auth });

  it('refuses (403) a session of another enterprise with no, empty, null, array, unverified (false or any non-boolean email_verified, "false" included) or other e-mail; nothing moves', async () => {
    const attempts: Record<string, unknown>[] = [
      {},
      { email: '' },
      { email: null },
      { email: ['buyer@example.com'] },
      { email: 'buyer@example.com', email_verified: false },
      { email: 'buyer@example.com', email_verified: 'false' },
      { email: 'buyer@example.com', email_verified: 'true' },
      { email: 'buyer@example.com', email_verified: 1 },
      { email: 'buyer@example.com', email_verified: null },
      { email: 'someone@example.com' },
    ];
    for (const claims of attempts) {
      const res = await claim(await sessionWith(claims));
      expect([JSON.stringify(claims), res.status, res.body.code]).toEqual([
        JSON.stringify(claims),
        403,
        'insufficient_permissions',
      ]);
    }
    expect(await contract.getFunction('ownerOf')(tokenId)).toBe(holding);
    const pub = await stack.call('GET', `/api/certificates/vouchers/${voucher.id}`);
    expect(pub.body.data.voucher.status).toBe('available');
  }, 60_000);

  it("the recipient's session, in another letter case, claims it and the token moves to their wallet", async () => {
    const res = await claim(await sessionWith({ email: ' Buyer@Example.COM ' }));
    expect([200, 202]).toContain(res.status);
    expect(res.body.data).toMatchObject({ voucherId: voucher.id });
    if (res.status === 200)
      expect(await contract.getFunction('ownerOf')(tokenId)).toBe(res.body.data.toAddress);
  }, 60_000);
});

describe("finding 2: a member's key never holds more than the member", () => {
  it("a member-made admin.* key cannot see, read, patch, rotate or revoke the owner's key; the owner's key keeps working", async () => {
    const ent = newId('enterprise');
    const owner = await stack.token({ ent, sub: 'owner', role: 'owner' });
    const member = await stack.token({ ent, sub: 'member', role: 'member' });
    const ownersKey = await createKey(stack, owner, { name: 'owner key' });
    const membersKey = await createKey(stack, member, { name: 'member admin key' });

    const listed = await stack.call('GET', '/api/v1/api-keys', { auth: membersKey.key });
    expect(listed.status).toBe(200);
    expect(listed.body.apiKeys.map((k: { id: string }) => k.id)).toEqual([membersKey.id]);
    const attempts = [
      ['GET', `/api/v1/api-keys/${ownersKey.id}`, undefined],
      ['PATCH', `/api/v1/api-keys/${ownersKey.id}`, { name: 'mine now' }],
      ['POST', `/api/v1/api-keys/${ownersKey.id}/rotate`, {}],
      ['DELETE', `/api/v1/api-keys/${ownersKey.id}`, undefined],
      ['GET', `/api/v1/api-keys/${ownersKey.id}/usage`, undefined],
      ['GET', `/api/v1/api-keys/${ownersKey.id}/audit-logs`, undefined],
    ] as const;
    for (const [method, url, body] of attempts) {
      const res = await stack.call(method, url, { auth: membersKey.key, body });
      expect([method, url, res.status]).toEqual([method, url, 404]);
    }
    // A key the member's key makes is bounded the same way.
    const child = await createKey(stack, membersKey.key, { name: 'child' });
    expect((await stack.call('GET', `/api/v1/api-keys/${ownersKey.id}`, { auth: child.key })).status).toBe(
      404,
    );

    const still = await stack.call('GET', `/api/v1/api-keys/${ownersKey.id}`, { auth: ownersKey.key });
    expect(still.status).toBe(200);
    expect(still.body).toMatchObject({ id: ownersKey.id, name: 'owner key', status: 'active' });
  }, 60_000);

  it('owner- and admin-made admin.* keys still manage every key of the enterprise', async () => {
    const ent = newId('enterprise');
    const owner = await stack.token({ ent, sub: 'owner', role: 'owner' });
    const admin = await stack.token({ ent, sub: 'admin', role: 'admin' });
    const member = await stack.token({ ent, sub: 'member', role: 'member' });
    const membersKey = await createKey(stack, member, { name: 'member key' });
    for (const maker of [owner, admin]) {
      const key = await createKey(stack, maker);
      const res = await stack.call('PATCH', `/api/v1/api-keys/${membersKey.id}`, {
        auth: key.key,
        body: { name: 'renamed by an admin key' },
      });
      expect(res.status).toBe(200);
    }
  }, 60_000);
});
