// Security group, findings 6 and 8 (provenance) of the review (docs/security.md): what the
// unauthenticated surface of a certificate gives away or sets off, proven through the real
// gateway on anvil. Each test failed on the code before its fix.
//
// 6. Anonymous views of /verify/:id cannot make an enterprise's endpoint receive unbounded
//    document.verified deliveries: one event per certificate and viewer per hour, and the
//    page is rate limited per client.
// 8. Public provenance shows the kind of actor, never an internal user or key id.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
import { callWithKey, createKey, timeUntil } from '../../src/keys.js';

let stack: TestStack;
let images: ImageServer;
let certificateId: string;

beforeAll(async () => {
  images = await startImageServer(mkdtempSync(path.join(tmpdir(), 'hallmark-images-')));
  stack = await startTestStack({
    anvil: true,
    restate: true,
    env: { NODE_EXTRA_CA_CERTS: images.caFile, HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
  });
  // A certificate minted by an API key and claimed by its recipient's session: its
  // provenance has an API key, a user and chain addresses in it.
  const key = (await createKey(stack, await stack.token(), { name: 'issuer' })).key;
  const body = orderBody(1);
  body.metadata = [{ ...(body.metadata[0] as object), imageUrl: `${images.url}/pub.png` }];
  const res = await callWithKey(stack, 'POST', '/api/bulk-mint', key, 'header', {
    body,
    headers: { 'idempotency-key': idempotencyKeyOf(body) },
  });
  expect(res.status).toBe(201);
  const voucherId = res.body.vouchers[0].id;
  certificateId = (await stack.call('GET', `/api/certificates/vouchers/${voucherId}`)).body.data.voucher
    .certificateId;
  const claim = await stack.call('POST', `/api/certificates/vouchers/${voucherId}/claim`, {
    auth: await stack.token({ email: 'buyer@example.com' }),
  });
  expect([200, 202]).toContain(claim.status);
  // A 202 claim's transfer lands shortly after; provenance then holds all three entries.
  await timeUntil(
    async () =>
      (await stack.call('GET', `/api/certificate/public/${certificateId}`)).body.provenance.length === 3,
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await images?.close();
}, 60_000);

const verifiedEvents = async () =>
  (
    await serviceQuery<{ n: number }>(
      stack,
      'certificates',
      "SELECT count(*)::int AS n FROM outbox WHERE type = 'document.verified' AND payload->'data'->'object'->>'id' = $1",
      [certificateId],
    )
  )[0]!.n;

describe('finding 8: public provenance names kinds of actors, never internal ids', () => {
  it('the public read and the verification page show no apikey_… or user_… id', async () => {
    const pub = await stack.call('GET', `/api/certificate/public/${certificateId}`);
    expect(pub.status).toBe(200);
    expect(pub.body.provenance.map((p: { kind: string; actor: string | null }) => [p.kind, p.actor])).toEqual(
      [
        ['minted', 'api_key'],
        ['claimed', 'user'],
        ['transferred', 'user'],
      ],
    );
    expect(pub.text).not.toMatch(/apikey_|user_[0-9A-Za-z]{24}|ent_[0-9A-Za-z]{24}/);
    const page = await stack.call('GET', `/verify/${certificateId}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/apikey_|user_[0-9A-Za-z]{24}|ent_[0-9A-Za-z]{24}/);
  });
});

describe('finding 6: anonymous views cannot flood an enterprise with document.verified', () => {
  it('ten views from one client record one event; the page answers 429 with Retry-After past 60 a minute', async () => {
    for (let i = 0; i < 10; i++)
      expect((await stack.call('GET', `/verify/${certificateId}`)).status).toBe(200);
    // The one recorded view leaves with its certificate's window (one event, views: 1).
    await timeUntil(async () => (await verifiedEvents()) > 0, { timeoutMs: 10_000, intervalMs: 100 });
    expect(await verifiedEvents()).toBe(1);

    let limited: { status: number; headers: Headers } | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await stack.call('GET', `/verify/${certificateId}`);
      if (res.status === 429) limited = res;
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other public reads keep their own, wider limit.
    expect((await stack.call('GET', `/api/certificate/public/${certificateId}`)).status).toBe(200);
  }, 60_000);
});
