// The public verification page in a real browser: headless Chromium (Debian's `chromium`, driven
// by playwright-core) opens the page of certificates minted on anvil through the real processes
// (verify-page-fixture.ts): a genuine one (every check passes), an unknown one (friendly 404) and
// one its holder burned on chain (says so; not_burned fails); without an issuer profile it says
// "Issuer not verified", and on anvil (no explorer) nothing links to one. Also the QR codes, the
// token metadata JSON of tokenURI, the page's CSP and escaping, and the document.verified event
// each verification records.
import { describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId } from '@hallmark/kit';
import { eventually } from '@hallmark/kit/testing';
import { ServiceRecordsServiceClient } from '@hallmark/proto/certificates/v1/service_records';
import { LostAndStolenServiceClient } from '@hallmark/proto/certificates/v1/stolen';
import { Contract, HDNodeWallet, JsonRpcProvider } from 'ethers';
import {
  HOLDER_INDEX,
  PNG_SIGNATURE,
  CHECKS,
  stack,
  client,
  genuine,
  pictured,
  IMAGE_SHA,
  toBurn,
  open,
  checks,
  screenshot,
  certificatesDb,
  devContract,
} from './verify-page-fixture.js';

describe('the verification page in headless Chromium', () => {
  it('shows an image entry as a person reads it: a short SHA-256 fingerprint in the attributes table, not raw JSON', async () => {
    const res = await stack.call('GET', `/verify/${pictured.id}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('{&quot;sha256&quot;');
    expect(res.text).not.toContain('{"sha256"');
    expect(res.text).toMatch(
      /<tr data-attribute="image">\s*<th scope="row">Image<\/th>\s*<td><span class="image-entry"/,
    );
    expect(res.text).toContain(`title="${IMAGE_SHA}">ab12cd34…ab12cd34</code>`);
  }, 60_000);

  it('a genuine certificate: every check passes, values are escaped, the CSP is strict', async () => {
    const { page, status } = await open(`/verify/${genuine.id}`);
    expect(status).toBe(200);
    expect(await page.locator('#result').getAttribute('data-result')).toBe('verified');
    expect(await checks(page)).toEqual(Object.fromEntries(CHECKS.map((c) => [c, 'true'])));
    expect(await page.locator('h1#name').textContent()).toBe('Gold Watch <b>"No. 1"</b> & Co');
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('#provenance [data-kind="minted"]').count()).toBe(1);
    // No issuer profile: said plainly. The local chain (anvil) has no explorer: nothing links to one.
    expect(await page.locator('#issuer .badge').textContent()).toBe('Issuer not verified');
    expect(await page.locator('#technical code').count()).toBeGreaterThan(0);
    expect(await page.locator('#technical a').count()).toBe(0);
    await screenshot(page, 'genuine');

    const raw = await stack.call('GET', `/verify/${genuine.id}`);
    expect(raw.headers.get('content-type')).toMatch(/^text\/html/);
    expect(raw.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(raw.text).not.toContain('<script>');
    expect(raw.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  }, 60_000);

  it('the open verification JSON says what the page says, names the chain, and any origin may read it', async () => {
    const res = await stack.call('GET', `/api/certificate/verify/${genuine.id}`, {
      headers: { origin: 'https://marketplace.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.body).toMatchObject({
      id: genuine.id,
      verified: true,
      burned: false,
      chain: {
        chainId: '31337',
        tokenId: genuine.tokenId,
        merkleRoot: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
      links: { proofBundle: `${stack.env.HALLMARK_PUBLIC_URL}/api/certificate/${genuine.id}/proof` },
    });
    expect(res.body.chain.contract.toLowerCase()).toBe((await devContract()).toLowerCase());
    expect(res.body.checks.map((c: { name: string; passed: boolean }) => [c.name, c.passed])).toEqual(
      CHECKS.map((c) => [c, true]),
    );
    const { page } = await open(`/verify/${genuine.id}`);
    expect(await page.locator('#download-proof').getAttribute('href')).toBe(
      `/api/certificate/${genuine.id}/proof`,
    );
    await page.close();
    expect((await stack.call('GET', `/api/certificate/verify/${newId('certificate')}`)).status).toBe(404);
    expect((await stack.call('GET', '/api/certificate/verify/not-an-id')).status).toBe(400);
  }, 60_000);

  it('a certificate reported stolen: the page shows the banner first, and a transfer of it is refused 409 certificate_reported_stolen', async () => {
    // Held by the brand's custodial holding account, so a transfer would otherwise go through.
    const brand = {
      enterprise_id: newId('enterprise'),
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    const minted = await client.api.mintBatch({
      principal: brand,
      idempotency_key: 'verify-page-stolen',
      holder_address: '',
      holder_account: { kind: 'enterprise', id: '' },
      items: [{ name: 'Stolen Bracelet' }],
    });
    const id = minted.certificates[0]!.id;
    await eventually(
      async () =>
        expect((await stack.call('GET', `/api/certificate/public/${id}`)).body?.status).toBe('minted'),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const before = await open(`/verify/${id}`);
    expect(await before.page.locator('#stolen').count()).toBe(0);
    await before.page.close();

    const stolen = createGrpcClient(LostAndStolenServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    try {
      await stolen.api.reportStolen({
        principal: brand,
        certificate_id: id,
        kind: 'stolen',
        reason: 'Shop break-in',
      });
    } finally {
      stolen.close();
    }
    await expect(
      client.api.transfer({
        principal: brand,
        certificate_id: id,
        idempotency_key: 'stolen-1',
        to_user_id: newId('user'),
      }),
    ).rejects.toMatchObject({ code: 'certificate_reported_stolen' });

    // The report's certificate.reported_stolen drops the cached page (and the TTL bounds it here).
    const today = new Date().toISOString().slice(0, 10);
    await eventually(
      async () => {
        const { page } = await open(`/verify/${id}`);
        try {
          expect(await page.locator('#stolen').getAttribute('data-stolen')).toBe('stolen');
        } finally {
          await page.close();
        }
      },
      { timeoutMs: 10_000, intervalMs: 300 },
    );
    const { page } = await open(`/verify/${id}`);
    const banner = page.locator('#stolen');
    expect(await banner.isVisible()).toBe(true);
    expect(await banner.textContent()).toContain(`Reported stolen on ${today}`);
    expect(await banner.textContent()).toContain('Do not buy this item');
    expect(await page.locator('#provenance [data-kind="reported_stolen"]').count()).toBe(1);
    expect(await page.textContent('body')).not.toContain('Shop break-in');
    await screenshot(page, 'stolen');
    expect((await stack.call('GET', `/api/certificate/public/${id}`)).body.stolen).toMatchObject({
      kind: 'stolen',
      reportedBy: 'brand',
    });
    // The open verification JSON says so too (its cache entry dropped by the same event).
    expect((await stack.call('GET', `/api/certificate/verify/${id}`)).body.stolen).toMatchObject({
      kind: 'stolen',
      reportedBy: 'brand',
    });
  }, 120_000);

  it('a service record appended by a repairer key and accepted by the owner appears in the page’s Service history; a refused one never does', async () => {
    const enterprise = newId('enterprise');
    const brand = {
      enterprise_id: enterprise,
      livemode: true,
      actor_id: newId('apiKey'),
      actor_type: 'api_key',
      scopes: [],
    };
    const repairer = { ...brand, actor_id: newId('apiKey'), scopes: ['service_records.write'] };
    // The owner: a user session (of its own account) whose custodial wallet holds the certificate.
    const owner = {
      enterprise_id: newId('enterprise'),
      livemode: true,
      actor_id: newId('user'),
      actor_type: 'user',
      scopes: ['admin.*'],
    };
    const minted = await client.api.mintBatch({
      principal: brand,
      idempotency_key: 'verify-page-service',
      holder_address: '',
      holder_account: { kind: 'user', id: owner.actor_id },
      items: [{ name: 'Serviced Watch' }],
    });
    const id = minted.certificates[0]!.id;
    await eventually(
      async () =>
        expect((await stack.call('GET', `/api/certificate/public/${id}`)).body?.status).toBe('minted'),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const before = await open(`/verify/${id}`);
    expect(await before.page.locator('#service-history').count()).toBe(0);
    await before.page.close();

    const records = createGrpcClient(ServiceRecordsServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    try {
      const add = (description: string) =>
        records.api.addServiceRecord({
          principal: repairer,
          certificate_id: id,
          kind: 'repair',
          performed_at: '2026-03-02',
          performer: 'Atelier Roux, Geneva',
          description,
          attachments: [],
        });
      const kept = await add('Mainspring replaced; water resistance tested.');
      const dropped = await add('Dial repainted without asking.');
      await records.api.decideServiceRecord({
        principal: owner,
        certificate_id: id,
        record_id: kept.id,
        decision: 'accept',
      });
      await records.api.decideServiceRecord({
        principal: owner,
        certificate_id: id,
        record_id: dropped.id,
        decision: 'refuse',
      });

      // The acceptance's certificate.service_record_accepted drops the cached page.
      await eventually(
        async () => {
          const { page } = await open(`/verify/${id}`);
          try {
            expect(await page.locator(`#service-history [data-service-record="${kept.id}"]`).count()).toBe(1);
          } finally {
            await page.close();
          }
        },
        { timeoutMs: 10_000, intervalMs: 300 },
      );
      const { page } = await open(`/verify/${id}`);
      const section = page.locator('#service-history');
      expect(await section.isVisible()).toBe(true);
      expect(await section.locator('h2').textContent()).toBe('Service history');
      expect(await section.textContent()).toContain('Mainspring replaced');
      expect(await section.textContent()).toContain('Atelier Roux, Geneva');
      expect(await page.textContent('body')).not.toContain('Dial repainted');
      await screenshot(page, 'service-history');
      const pub = (await stack.call('GET', `/api/certificate/public/${id}`)).body;
      expect(pub.serviceHistory.map((e: { id: string }) => e.id)).toEqual([kept.id]);
    } finally {
      records.close();
    }
  }, 120_000);

  it('an unknown certificate: a friendly 404 page', async () => {
    const { page, status } = await open(`/verify/${newId('certificate')}`);
    expect(status).toBe(404);
    expect(await page.locator('#result').getAttribute('data-result')).toBe('not_found');
    await screenshot(page, 'unknown');
    expect((await stack.call('GET', '/verify/not-an-id')).status).toBe(404);
  }, 60_000);

  it('a certificate burned on chain: the page says so and not_burned fails', async () => {
    const provider = new JsonRpcProvider(stack.env.HALLMARK_CHAIN_RPC_URL);
    const holder = HDNodeWallet.fromPhrase(
      'test test test test test test test test test test test junk',
      undefined,
      `m/44'/60'/0'/0/${HOLDER_INDEX}`,
    ).connect(provider);
    const contract = new Contract(await devContract(), ['function burn(uint256 tokenId)'], holder);
    await (await contract.getFunction('burn')(toBurn.tokenId)).wait();
    provider.destroy();

    // The verification reads the chain index: the burn shows once the chain indexer has seen it
    // (it marks the certificate burned in the same transaction). Waited for here, not by
    // reloading the page: only a viewer's first view an hour records document.verified, and the
    // last test wants that event to be this failed verification.
    await eventually(
      async () => {
        const { rows } = await certificatesDb((db) =>
          db.query<{ status: string }>('SELECT status FROM certificates WHERE id = $1', [toBurn.id]),
        );
        expect(rows[0]?.status).toBe('burned');
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const { page, status } = await eventually(
      async () => {
        const opened = await open(`/verify/${toBurn.id}`);
        if ((await opened.page.locator('#result').getAttribute('data-result')) !== 'burned') {
          await opened.page.close();
          throw new Error('not burned yet');
        }
        return opened;
      },
      { timeoutMs: 15_000, intervalMs: 300 },
    );
    expect(status).toBe(200);
    const results = await checks(page);
    expect(results).toMatchObject({ record_found: 'true', on_chain: 'true', not_burned: 'false' });
    expect(await page.locator('[data-check="not_burned"] .why').textContent()).toMatch(/burned/);
    await screenshot(page, 'burned');
  }, 60_000);

  it('QR codes (SVG, PNG), token metadata JSON, and a document.verified event per verification', async () => {
    const svg = await stack.call('GET', `/verify/${genuine.id}/qr.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const png = await fetch(`${stack.gatewayUrl}/verify/${genuine.id}/qr.png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(0, 8)
        .equals(PNG_SIGNATURE),
    ).toBe(true);
    expect((await stack.call('GET', `/verify/${newId('certificate')}/qr.svg`)).status).toBe(404);

    const meta = await stack.call('GET', `/api/certificate/metadata/${genuine.tokenId}`);
    expect(meta.status).toBe(200);
    expect(meta.body).toEqual({
      name: 'Gold Watch <b>"No. 1"</b> & Co',
      description: 'A gold watch',
      image: 'https://img.hallmark.test/watch.png',
      external_url: `${stack.env.HALLMARK_PUBLIC_URL}/verify/${genuine.id}`,
      attributes: expect.arrayContaining([
        { trait_type: 'artist', value: '<script>alert(1)</script>' },
        { trait_type: 'category', value: 'Watches' },
        { trait_type: 'certificate', value: genuine.id },
      ]),
    });
    expect((await stack.call('GET', '/api/certificate/metadata/999999')).status).toBe(404);

    // Counted per certificate and emitted once per window (HALLMARK_VERIFICATION_EVENT_WINDOW_MS).
    await eventually(
      async () => {
        const events = await certificatesDb(async (db) => {
          const { rows } = await db.query<{ payload: { data: { object: Record<string, unknown> } } }>(
            "SELECT payload FROM outbox WHERE type = 'document.verified'",
          );
          return rows.map((r) => r.payload.data.object);
        });
        expect(events).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              id: genuine.id,
              result: 'verified',
              verified_at: expect.any(String),
              views: expect.any(Number),
            }),
            expect.objectContaining({ id: toBurn.id, result: 'failed' }),
          ]),
        );
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
  }, 60_000);
});

describe('verification against a tampered record', () => {
  it('changed metadata or holder in the database fail their checks with the reason', async () => {
    await certificatesDb((db) =>
      db.query(
        `UPDATE certificates SET metadata = metadata || '{"artist":"Forger"}',
           holder_address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' WHERE id = $1`,
        [genuine.id],
      ),
    );
    // No event tells the gateway of a change made behind the service's back: its cached page
    // is replaced once its TTL has passed.
    const page = await eventually(
      async () => {
        const p = await stack.call('GET', `/verify/${genuine.id}`);
        expect(p.status).toBe(200);
        expect(p.text).toContain('data-result="failed"');
        return p;
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    // The markup of one check, from its data-check attribute to the next one.
    const check = (name: string) => page.text.split('data-check="').find((s) => s.startsWith(`${name}"`))!;
    expect(check('metadata')).toContain('data-passed="false"');
    expect(check('metadata')).toContain('changed after minting');
    expect(check('holder')).toContain('data-passed="false"');
    expect(check('holder')).toContain('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(check('on_chain')).toContain('data-passed="true"');
  }, 30_000);
});
