// The issuer profile through the real processes: an owner sets it over the gateway, the keys
// service fetches the brand's `/.well-known/hallmark-issuer.json` from a local HTTPS server
// through the outbound guard (127.0.0.1 allowed for the test, as the bulk image tests do), and
// the profile reads back with the domain marked verified; a missing file or one
// naming another enterprise leaves it unverified; a member may not set it. Then, on the chain:
// the verify page of a certificate minted for the enterprise, as the gateway renders it, says
// "Issued by <brand>" with the domain verified and Hallmark's copy of the logo, shows the
// attributes as a table and folds the Merkle root, addresses and transaction away.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, newId } from '@hallmark/kit';
import { CertificatesServiceClient } from '@hallmark/proto/certificates/v1/certificates';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { png } from '../src/bulk.js';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let site: Server;
let origin: string;
/** What the brand serves at the well-known path; null: 404. */
let proof: string | null = null;
const LOGO = png('maison-logo');

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'hallmark-test-brand' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'hallmark-brand-')), 'ca.pem');
  writeFileSync(caFile, pems.cert);
  site = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    if (req.url === '/.well-known/hallmark-issuer.json' && proof !== null) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(proof);
    } else if (req.url === '/logo.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(LOGO);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  origin = `https://127.0.0.1:${(site.address() as { port: number }).port}`;
  // The chain for the rendered verify page below; mints batched every 200 ms.
  stack = await startTestStack({
    anvil: true,
    env: {
      NODE_EXTRA_CA_CERTS: caFile,
      HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      HALLMARK_CERTIFICATES_MINT_INTERVAL_MS: '200',
      HALLMARK_CHAIN_EXPLORER_TX_URL: 'https://explorer.test/tx/{hash}',
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => site?.close(resolve));
});

async function call(method: string, url: string, token: string, body?: object) {
  const res = await fetch(`${stack.gatewayUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('enterprise issuer profile with domain proof', () => {
  it('is verified when the brand site names the enterprise, unverified when missing or naming another', async () => {
    const ent = newId('enterprise');
    const owner = await stack.token({ ent });
    const profile = { displayName: 'Maison Test', website: `${origin}/` };

    proof = JSON.stringify({ enterpriseId: ent });
    const saved = await call('PUT', '/api/v1/enterprise/profile', owner, profile);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      enterpriseId: ent,
      displayName: 'Maison Test',
      domain: { host: new URL(origin).host, status: 'verified', detail: null },
    });

    proof = null;
    const missing = await call('POST', '/api/v1/enterprise/profile/domain-check', owner);
    expect(missing.body.domain).toMatchObject({ status: 'unverified' });

    proof = JSON.stringify({ enterpriseId: newId('enterprise') });
    const other = await call('POST', '/api/v1/enterprise/profile/domain-check', owner);
    expect(other.body.domain).toMatchObject({
      status: 'unverified',
      detail: '/.well-known/hallmark-issuer.json does not name this enterprise.',
    });
    expect((await call('GET', '/api/v1/enterprise/profile', owner)).body.domain.status).toBe('unverified');

    const member = await stack.token({ ent, role: 'member' });
    expect((await call('PUT', '/api/v1/enterprise/profile', member, profile)).status).toBe(403);
    const stranger = await stack.token();
    expect((await call('GET', '/api/v1/enterprise/profile', stranger)).status).toBe(404);
  });
});

describe('the rendered verify page of a certificate minted on chain', () => {
  it('says "Issued by <brand>" with the domain verified and the archived logo, shows attributes as a table and folds the technical details', async () => {
    const ent = newId('enterprise');
    const owner = await stack.token({ ent });
    proof = JSON.stringify({ enterpriseId: ent });
    const saved = await call('PUT', '/api/v1/enterprise/profile', owner, {
      displayName: 'Maison <Lumière>',
      website: `${origin}/`,
      logoUrl: `${origin}/logo.png`,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ domain: { status: 'verified' }, indexable: false });
    expect(saved.body.logo).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const certificates = createGrpcClient(CertificatesServiceClient, stack.env.HALLMARK_CERTIFICATES_ADDR!);
    try {
      const principal = {
        enterprise_id: ent,
        livemode: true,
        actor_id: newId('apiKey'),
        actor_type: 'api_key',
        scopes: [],
      };
      const batch = await certificates.api.mintBatch({
        principal,
        idempotency_key: 'issuer-page-1',
        holder_address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        items: [
          {
            name: 'Chronograph No. 9',
            metadata_json: JSON.stringify({ serialNumber: 'SN-0009', materials: ['steel', 'sapphire'] }),
          },
        ],
      });
      const minted = await certificates.api.getMintBatch(
        { principal, batch_id: batch.batch_id, wait_ms: 30_000, status_only: false },
        { deadlineMs: 40_000 },
      );
      expect(minted.status).toBe('minted');
      const cert = minted.certificates[0]!;

      const res = await fetch(`${stack.gatewayUrl}/verify/${cert.id}`);
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).toContain('data-result="verified"');
      // The issuer, named plainly, its domain verified, its logo served by Hallmark.
      expect(page).toMatch(/Issued by <strong>Maison &lt;Lumière&gt;<\/strong>/);
      expect(page).toMatch(/id="issuer"\s+data-domain="verified"/);
      expect(page).toContain('✓ domain verified');
      const logoSrc = /<img[^>]*id="issuer-logo"[^>]*src="([^"]+)"/s.exec(page)?.[1];
      expect(logoSrc).toBe(`/media/${saved.body.logo.sha256}`);
      const logo = await fetch(`${stack.gatewayUrl}${logoSrc}`);
      expect(logo.status).toBe(200);
      // Content-addressed: the bytes served hash to the name they are served under.
      const served = Buffer.from(await logo.arrayBuffer());
      expect(createHash('sha256').update(served).digest('hex')).toBe(saved.body.logo.sha256);
      // Attributes as a table, never JSON.
      expect(page).toMatch(/<th scope="row">Serial number<\/th>\s*<td>SN-0009<\/td>/);
      expect(page).toContain('<li>sapphire</li>');
      expect(page).not.toMatch(/[{[]&quot;/);
      // The proof folded under "Technical details", the transaction linked to the explorer.
      const details = page.slice(page.indexOf('<details class="card tech" id="technical">'));
      expect(details).toMatch(
        /^<details class="card tech" id="technical">\s*<summary>Technical details<\/summary>/,
      );
      expect(details).toMatch(/<dt>Merkle root<\/dt>\s*<dd><code title="0x[0-9a-f]{64}">/);
      expect(details).toContain(`href="https://explorer.test/tx/${cert.transaction_hash}"`);
      expect(details).toMatch(/<dt>Contract<\/dt>/);
      expect(page.indexOf(cert.transaction_hash!)).toBeGreaterThan(page.indexOf('<details'));
    } finally {
      certificates.close();
    }
  }, 90_000);
});
