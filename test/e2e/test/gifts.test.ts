// Gifts through the real processes (gateway, certificates with its gift workflow on a real
// Restate, notify with a real SMTP sink and the local Twilio-speaking SMS server, anvil): a
// gift is created, its e-mail (and SMS) arrive with the claim link, the claim page renders in
// Chromium, the recipient's session claims it and the token is on chain in the recipient's
// wallet with provenance; single-use under 100 parallel claims; revoke and expiry leave the
// certificate with the sender; a down primary SMTP falls back; invalid links are rate limited.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSmtpSink, type SmtpSinkHandle } from '@hallmark/devstack';
import { createGrpcClient, newId, serviceDatabaseUrl, type GrpcClient } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { startTestStack, type TestStack } from '../src/index.js';

/** A short gift lifetime (36 s) so the expiry test sees the workflow's durable timer fire. */
const TTL_HOURS = 0.01;

let stack: TestStack;
let fallback: SmtpSinkHandle;
let browser: Browser;
let certificates: GrpcClient<CertificatesServiceClient>;
let provider: JsonRpcProvider;
let contract: Contract;
let db: pg.Client;
const enterprise = newId('enterprise');
let sender: string;
/** Minted certificates held by the enterprise's holding wallet: {id, tokenId}. */
let certs: { id: string; tokenId: number }[];
let holding: string;

beforeAll(async () => {
  fallback = await startSmtpSink();
  [stack, browser] = await Promise.all([
    startTestStack({
      anvil: true,
      restate: true,
      smtp: true,
      sms: true,
      env: {
        SMTP_FALLBACK_URL: fallback.url,
        HALLMARK_GIFT_TTL_HOURS: String(TTL_HOURS),
        HALLMARK_GIFT_TOKEN_ATTEMPT_LIMIT: '150',
        HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200',
        HALLMARK_NOTIFY_PROVIDER_TIMEOUT_MS: '2000',
      },
    }),
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
    }),
  ]);
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
    idempotency_key: 'gifts-e2e',
    holder_address: '',
    holder_account: { kind: 'enterprise', id: '' },
    items: Array.from({ length: 7 }, (_, i) => ({
      name: i === 0 ? 'Seamaster <b>"1957"</b>' : `Watch ${i}`,
      image_url: `https://img.hallmark.test/${i}.png`,
      metadata_json: JSON.stringify({ brand: 'Omega & Co' }),
    })),
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
  holding = await ownerOf(certs[0]!.tokenId);
  sender = await stack.token({ ent: enterprise, sub: 'sender', email: 'sender@example.com' });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  provider?.destroy();
  certificates?.close();
  await db?.end();
  await stack?.close();
  await fallback?.stop();
}, 60_000);

const ownerOf = (tokenId: number) => contract.getFunction('ownerOf')(tokenId) as Promise<string>;

const create = (body: Record<string, unknown>, auth: string | undefined = sender) =>
  stack.call('POST', '/api/certificates/gift/create', { auth, body });

const claim = (token: string, auth?: string) =>
  stack.call('POST', `/api/certificates/gift/claim/${token}`, { auth });

const linkIn = (text: string) => /\/claim\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];

describe('creating a gift', () => {
  it('refuses bad input with a 4xx naming the field, another enterprise’s certificate with 404, no credential with 401', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ recipientEmail: 'a@example.com' }, 400, 'certificateId'],
      [{ certificateId: certs[5]!.id }, 400, 'recipientEmail'],
      [{ certificateId: certs[5]!.id, recipientEmail: 'not-an-address' }, 400, 'recipientEmail'],
      [
        { certificateId: certs[5]!.id, recipientEmail: 'a@example.com', recipientPhone: '555' },
        400,
        'recipientPhone',
      ],
      [
        { certificateId: certs[5]!.id, recipientEmail: 'a@example.com', message: 'x'.repeat(501) },
        400,
        'message',
      ],
    ];
    for (const [body, status, param] of cases) {
      const res = await create(body);
      expect({ status: res.status, param: res.body?.param ?? res.body?.errors?.[0]?.field }).toMatchObject({
        status,
      });
      expect(JSON.stringify(res.body)).toContain(param);
    }
    const other = await create(
      { certificateId: certs[5]!.id, recipientEmail: 'a@example.com' },
      await stack.token(),
    );
    expect(other.status).toBe(404);
    expect((await create({ certificateId: certs[5]!.id, recipientEmail: 'a@example.com' }, '')).status).toBe(
      401,
    );
  }, 30_000);
});

describe('the sender credential', () => {
  it('a certificate held by an address Hallmark keeps no key for cannot be gifted: 502 sender_credential_missing', async () => {
    const principal = {
      enterprise_id: enterprise,
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    const batch = await certificates.api.mintBatch({
      principal,
      idempotency_key: 'gifts-e2e-external',
      holder_address: Wallet.createRandom().address,
      items: [{ name: 'Held elsewhere' }],
    });
    const minted = await certificates.api.getMintBatch({
      principal,
      batch_id: batch.batch_id,
      wait_ms: 30_000,
      status_only: false,
    });
    expect(minted.status).toBe('minted');
    const res = await create({ certificateId: minted.certificates[0]!.id, recipientEmail: 'x@example.com' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'sender_credential_missing' });
  }, 60_000);
});

describe('a gift claimed by its recipient', () => {
  let token: string;
  let transferId: string;

  it('201 pending with a claim token; the e-mail and the SMS carry the claim link and the message', async () => {
    const res = await create({
      certificateId: certs[0]!.id,
      recipientEmail: 'Recipient@Example.com',
      recipientPhone: '+1 555 010 9999',
      message: 'Happy birthday <3',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      status: 'pending',
      transferId: expect.stringMatching(/^gift_/),
    });
    ({ claimToken: token, transferId } = res.body);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.gift).toMatchObject({
      senderAddress: holding,
      userOperationHash: null,
      transactionHash: null,
    });

    const mail = await stack.smtp!.waitForMessage(
      (m) => m.to.some((t) => t.toLowerCase() === 'recipient@example.com'),
      20_000,
    );
    expect(linkIn(mail.text)).toBe(token);
    expect(mail.text).toContain(`${stack.env.HALLMARK_PUBLIC_URL}/claim/${token}`);
    expect(mail.text).toContain('Happy birthday <3');
    expect(mail.html).toContain('Happy birthday &lt;3');
    const sms = await stack.sms!.waitForMessage((m) => m.to === '+15550109999', 20_000);
    expect(linkIn(sms.body)).toBe(token);

    // Stored: the token only as a hash, the contacts encrypted, the phone hashed.
    const { rows } = await db.query('SELECT * FROM gifts WHERE id = $1', [transferId]);
    const text = JSON.stringify(rows[0]);
    expect(text).not.toContain(token);
    expect(text).not.toMatch(/recipient@example|5550109999/i);
    expect(rows[0].recipient_phone_hash).toMatch(/^[0-9a-f]{64}$/);
    await eventually(async () => {
      const got = await stack.call('GET', `/api/certificates/gift/${transferId}`, { auth: sender });
      expect(got.body.gift).toMatchObject({ notification: 'sent', notificationError: null });
    });
  }, 60_000);

  it('a second gift of a certificate in a pending gift is refused (409 naming the pending gift)', async () => {
    const res = await create({ certificateId: certs[0]!.id, recipientEmail: 'b@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, code: 'resource_locked', param: 'certificateId' });
    expect(res.body.error).toContain(`a pending gift (${transferId})`);
  });

  it('the claim page renders in Chromium: image, name, issuer, message, expiry, how to claim; escaped', async () => {
    const page = await browser.newPage();
    try {
      const res = await page.goto(`${stack.gatewayUrl}/claim/${token}`);
      expect(res!.status()).toBe(200);
      expect(await page.textContent('#name')).toBe('Seamaster <b>"1957"</b>');
      expect(await page.textContent('#issuer')).toContain('Omega & Co');
      expect(await page.textContent('#message')).toBe('Happy birthday <3');
      expect(await page.getAttribute('img.photo', 'src')).toBe('https://img.hallmark.test/0.png');
      expect(await page.textContent('body')).toContain(`/api/certificates/gift/claim/${token}`);
      expect(await page.$$('script')).toHaveLength(0);
    } finally {
      await page.close();
    }
  }, 30_000);

  it('claiming needs a user session (401 without)', async () => {
    const res = await claim(token);
    expect(res.status).toBe(401);
  });

  it("the recipient's claim moves the token on chain to their wallet; provenance shows the transfer; a second claim is refused", async () => {
    const recipient = await stack.token({ sub: 'recipient' });
    const res = await claim(token, recipient);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      status: 'claimed',
      userOperationHash: null,
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const to = res.body.gift.recipientAddress as string;
    expect(await ownerOf(certs[0]!.tokenId)).toBe(to);
    const pub = await stack.call('GET', `/api/certificate/public/${certs[0]!.id}`);
    const kinds = (pub.body.provenance as { kind: string; to?: string }[]).map((p) => p.kind);
    expect(kinds).toEqual(expect.arrayContaining(['minted', 'transferred', 'gifted']));
    expect(pub.body.provenance.find((p: { kind: string }) => p.kind === 'transferred').to).toBe(to);

    const again = await claim(token, recipient);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ replayed: true, transactionHash: res.body.transactionHash });
    const other = await claim(token, await stack.token({ sub: 'someone-else' }));
    expect(other.status).toBe(404);
    const page = await stack.call('GET', `/claim/${token}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('data-status="claimed"');
    const gift = await stack.call('GET', `/api/certificates/gift/${transferId}`, { auth: sender });
    expect(gift.body.gift).toMatchObject({ status: 'claimed', transactionHash: res.body.transactionHash });
  }, 60_000);
});

describe('single use under concurrency', () => {
  it('100 parallel claims of one token by 100 users: exactly one wins, one transfer', async () => {
    const res = await create({ certificateId: certs[1]!.id, recipientEmail: 'race@example.com' });
    expect(res.status).toBe(201);
    const users = await Promise.all(
      Array.from({ length: 100 }, (_, i) => stack.token({ sub: `racer-${i}` })),
    );
    const answers = await Promise.all(users.map((u) => claim(res.body.claimToken, u)));
    const won = answers.filter((a) => a.status === 200 || a.status === 202);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 404)).toHaveLength(99);
    await eventually(
      async () => expect(await ownerOf(certs[1]!.tokenId)).toBe(won[0]!.body.gift.recipientAddress),
      {
        timeoutMs: 30_000,
      },
    );
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM certificate_transfers WHERE certificate_id = $1',
      [certs[1]!.id],
    );
    expect(rows[0].n).toBe(1);
  }, 120_000);
});

describe('revoke and expiry', () => {
  it('revoke by the creator: the link stops working and the certificate stays with the sender; others 404/403', async () => {
    const res = await create({ certificateId: certs[2]!.id, recipientEmail: 'revoked@example.com' });
    const { transferId, claimToken } = res.body;
    const stranger = await stack.call('POST', `/api/certificates/gift/revoke/${transferId}`, {
      auth: await stack.token(),
    });
    expect(stranger.status).toBe(404);
    const colleague = await stack.call('POST', `/api/certificates/gift/revoke/${transferId}`, {
      auth: await stack.token({ ent: enterprise, sub: 'colleague' }),
    });
    expect(colleague.status).toBe(403);
    const revoked = await stack.call('POST', `/api/certificates/gift/revoke/${transferId}`, { auth: sender });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked' });
    expect((await claim(claimToken, await stack.token({ sub: 'late' }))).status).toBe(404);
    expect((await stack.call('GET', `/claim/${claimToken}`)).text).toContain('data-status="revoked"');
    expect(await ownerOf(certs[2]!.tokenId)).toBe(holding);
    const resend = await stack.call('POST', `/api/certificates/gift/resend/${transferId}`, { auth: sender });
    expect(resend.status).toBe(422);
  }, 60_000);

  it('resend by the creator sends the same link again', async () => {
    const res = await create({ certificateId: certs[3]!.id, recipientEmail: 'twice@example.com' });
    const resend = await stack.call('POST', `/api/certificates/gift/resend/${res.body.transferId}`, {
      auth: sender,
    });
    expect(resend.status).toBe(200);
    expect(resend.body).toEqual({ success: true, status: 'pending', method: 'email' });
    await eventually(() =>
      expect(stack.smtp!.messages.filter((m) => m.to.includes('twice@example.com'))).toHaveLength(2),
    );
    for (const m of stack.smtp!.messages.filter((x) => x.to.includes('twice@example.com')))
      expect(linkIn(m.text)).toBe(res.body.claimToken);
  }, 60_000);

  it('an unclaimed gift expires at its timer: removed, the sender told, the certificate stays with the sender', async () => {
    // certs[3]'s gift (just above) expires TTL after its creation.
    const { rows } = await db.query<{ id: string }>('SELECT id FROM gifts WHERE certificate_id = $1', [
      certs[3]!.id,
    ]);
    const id = rows[0]!.id;
    const notice = await stack.smtp!.waitForMessage(
      (m) => m.to.includes('sender@example.com') && m.subject.includes('expired'),
      TTL_HOURS * 3_600_000 + 40_000,
    );
    expect(notice.text).toContain('stays with you');
    const { rows: left } = await db.query('SELECT id FROM gifts WHERE id = $1', [id]);
    expect(left).toHaveLength(0);
    expect(await ownerOf(certs[3]!.tokenId)).toBe(holding);
  }, 120_000);
});

describe("the enterprise's own email template", () => {
  it('an email template named `gift` replaces the built-in message, filled with the claim link and the message', async () => {
    const tmpl = await stack.call('POST', '/api/v1/templates', {
      auth: sender,
      body: {
        name: 'Gift',
        type: 'email',
        format: 'html',
        subject: 'From the Omega boutique: {{certificateName}}',
        body: '<p>{{message}}</p><p><a href="{{claimUrl}}">Claim your certificate</a></p>',
        variables: [
          { name: 'certificateName', type: 'string', required: true },
          { name: 'message', type: 'string', required: false },
          { name: 'claimUrl', type: 'string', required: true },
        ],
      },
    });
    expect(tmpl.status).toBe(201);
    const res = await create({
      certificateId: certs[5]!.id,
      recipientEmail: 'branded@example.com',
      message: 'Enjoy',
    });
    expect(res.status).toBe(201);
    const mail = await stack.smtp!.waitForMessage((m) => m.to.includes('branded@example.com'), 20_000);
    expect(mail.subject).toBe('From the Omega boutique: Watch 5');
    expect(mail.html).toContain(`href="${stack.env.HALLMARK_PUBLIC_URL}/claim/${res.body.claimToken}"`);
    expect(mail.html).toContain('<p>Enjoy</p>');
  }, 60_000);
});

describe('notification fallback', () => {
  it('with the primary SMTP down, the e-mail is delivered by the fallback', async () => {
    await stack.smtp!.stop();
    const res = await create({ certificateId: certs[4]!.id, recipientEmail: 'fallback@example.com' });
    expect(res.status).toBe(201);
    const mail = await fallback.waitForMessage((m) => m.to.includes('fallback@example.com'), 30_000);
    // The enterprise's `gift` template (above) applies: the link is in its HTML.
    expect(linkIn(mail.html!)).toBe(res.body.claimToken);
  }, 60_000);

  it('a gift whose e-mail every provider refuses shows notification: failing with the last error, not a silent pending', async () => {
    await fallback.stop(); // the primary is down already (above): no transport is left
    const res = await create({ certificateId: certs[6]!.id, recipientEmail: 'unreachable@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.gift).toMatchObject({
      status: 'pending',
      notification: 'pending',
      notificationError: null,
    });
    const gift = await eventually(
      async () => {
        const got = await stack.call('GET', `/api/certificates/gift/${res.body.transferId}`, {
          auth: sender,
        });
        expect(got.body.gift).toMatchObject({ status: 'pending', notification: 'failing' });
        return got.body.gift;
      },
      { timeoutMs: 40_000 },
    );
    expect(gift.notificationError).toMatch(/^upstream_error: Email could not be sent/);
    expect(gift.notificationError).not.toContain('unreachable@example.com');
  }, 60_000);
});

describe('invalid claim links are rate limited', () => {
  it('after the configured number of invalid attempts per client the claim page and the claim answer 429', async () => {
    let status = 0;
    for (let i = 0; i < 200 && status !== 429; i++) {
      status = (await stack.call('GET', `/claim/${'A'.repeat(43)}`)).status;
      if (status !== 429) expect(status).toBe(404);
    }
    expect(status).toBe(429);
    const page = await stack.call('GET', `/claim/${'A'.repeat(43)}`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('data-status="rate_limited"');
    const res = await claim('B'.repeat(43), await stack.token({ sub: 'limited' }));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  }, 60_000);
});
