// The issuer profile through the real processes: an owner sets it over the gateway, the keys
// service fetches the brand's `/.well-known/hallmark-issuer.json` from a local HTTPS server
// through the outbound guard (127.0.0.1 allowed for the test, as the bulk image tests do), and
// the profile reads back with the domain marked verified; a missing file or one
// naming another enterprise leaves it unverified; a member may not set it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@hallmark/kit';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { startTestStack, type TestStack } from '../src/index.js';

let stack: TestStack;
let site: Server;
let origin: string;
/** What the brand serves at the well-known path; null: 404. */
let proof: string | null = null;

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
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  origin = `https://127.0.0.1:${(site.address() as { port: number }).port}`;
  stack = await startTestStack({
    env: { NODE_EXTRA_CA_CERTS: caFile, HALLMARK_OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
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
